#pragma once
// Step two of COCO scoring (pycocotools' accumulate): pool the per-image matches of each class
// into precision at the 101 recall thresholds and the final recall, for every IoU threshold,
// area range and maxDets. Entries stay -1 where a class has no ground truth to find.

#include <cstddef>
#include <vector>

#include "libreyolo/core/eval/coco_params.hpp"
#include "libreyolo/core/eval/image_matching.hpp"

namespace libreyolo::core::eval {

class PrecisionRecallTable {
 public:
  explicit PrecisionRecallTable(std::size_t class_count);

  std::size_t class_count() const { return class_count_; }

  // Interpolated precision (monotone, sampled at recall_thresholds()[recall_index]).
  double precision(std::size_t iou_index, std::size_t recall_index, std::size_t class_index,
                   AreaRange area, std::size_t max_detections_index) const;
  // Recall reached with every evaluated detection.
  double recall(std::size_t iou_index, std::size_t class_index, AreaRange area,
                std::size_t max_detections_index) const;

  void set_precision(std::size_t iou_index, std::size_t recall_index, std::size_t class_index,
                     AreaRange area, std::size_t max_detections_index, double value);
  void set_recall(std::size_t iou_index, std::size_t class_index, AreaRange area,
                  std::size_t max_detections_index, double value);

 private:
  std::size_t recall_slot(std::size_t iou_index, std::size_t class_index, AreaRange area,
                          std::size_t max_detections_index) const;

  std::size_t class_count_;
  std::vector<double> precision_;  // recall_slot * kRecallThresholdCount + recall_index
  std::vector<double> recall_;     // recall_slot
};

// `per_class[k]` holds the matches of class k for every image where that class has a ground
// truth or a detection, in ascending image-id order: that order breaks score ties across
// images, as pycocotools' concatenation over sorted image ids does.
PrecisionRecallTable accumulate_precision_recall(
    const std::vector<std::vector<ImageClassMatch>>& per_class);

}  // namespace libreyolo::core::eval

#pragma once
// Ultralytics' detection confusion matrix (ultralytics/utils/metrics.py, ConfusionMatrix):
// per image, the detections above a confidence are matched to the ground truth by IoU whatever
// their classes, and every object and every detection lands in one cell. Row = predicted class,
// column = true class; the extra last row and column are "background": an object nothing found
// (background row) and a detection of nothing (background column). Crowd regions are left out,
// as Ultralytics' COCO conversion drops them.

#include <cstddef>
#include <vector>

#include "libreyolo/core/eval/coco_evaluator.hpp"
#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::eval {

struct ConfusionThresholds {
  // Both strict, as Ultralytics compares: a detection counts when its score is above
  // `confidence`, a pair matches when its IoU is above `iou`.
  double confidence = 0.25;
  double iou = 0.45;
};

class ConfusionMatrix {
 public:
  explicit ConfusionMatrix(std::size_t class_count, ConfusionThresholds thresholds = {});

  // One image's objects and detections (any order; classes must be below class_count).
  void add_image(const std::vector<GroundTruthObject>& objects, const std::vector<Detection>& detections);

  std::size_t class_count() const { return class_count_; }
  // The index of the background row and column.
  std::size_t background() const { return class_count_; }
  std::size_t count(std::size_t predicted, std::size_t truth) const;
  // count / the column's sum: the share of the true class's objects (of the background
  // column's false detections) in each predicted row; 0 in an empty column.
  double normalised(std::size_t predicted, std::size_t truth) const;
  // Classes with any count in their row or their column, ascending, without the background:
  // the ones worth a row and a column in a picture.
  std::vector<std::size_t> classes_present() const;

 private:
  std::size_t& cell(std::size_t predicted, std::size_t truth) { return counts_[predicted * (class_count_ + 1) + truth]; }

  std::size_t class_count_;
  ConfusionThresholds thresholds_;
  std::vector<std::size_t> counts_;  // (class_count + 1)^2, row-major [predicted][truth]
};

// Every image the evaluator holds, counted.
ConfusionMatrix confusion_matrix(const CocoEvaluator& evaluator, ConfusionThresholds thresholds = {});

}  // namespace libreyolo::core::eval

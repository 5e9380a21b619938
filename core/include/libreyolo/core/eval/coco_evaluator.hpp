#pragma once
// COCO bbox evaluation without Python: collect ground truth and detections image by image
// (e.g. batch by batch during validation), then compute what pycocotools' COCOeval computes
// for iouType='bbox' with default parameters, number for number.

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "libreyolo/core/eval/coco_summary.hpp"
#include "libreyolo/core/eval/f1_precision_recall.hpp"
#include "libreyolo/core/eval/precision_recall.hpp"
#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::eval {

struct ClassMetrics {
  int class_id = 0;
  std::string name;
  std::size_t images = 0;     // images holding at least one (non-crowd) object of the class
  std::size_t instances = 0;  // non-crowd objects of the class: what recall is measured on
  double ap50_95 = -1.0;      // -1: no instances, nothing to measure
  double ap50 = -1.0;
  // Ultralytics' P and R at the confidence of the best mean F1 (f1_precision_recall.hpp); -1
  // without instances.
  double precision = -1.0;
  double recall = -1.0;
};

struct CocoEvaluation {
  CocoStats stats;
  std::vector<ClassMetrics> per_class;  // one per class, in class-id order
  std::size_t images = 0;
  std::size_t instances = 0;
  // Ultralytics' mean P and R over the classes with instances, and the confidence they are at.
  double precision = 0;
  double recall = 0;
  double f1_confidence = 0;
  // The full table behind the numbers, for precision-recall curves.
  PrecisionRecallTable curves{0};
  // P, R and F1 against the confidence threshold, per class with instances (F1_curve.png).
  std::vector<ClassConfidenceCurve> confidence_curves;
};

class CocoEvaluator {
 public:
  // Class ids are indices into `class_names`; COCO category ids are only a JSON concern.
  explicit CocoEvaluator(std::vector<std::string> class_names);

  // One call per image, including images without objects (their detections are false
  // positives) and images without detections. Image ids must be unique. Throws core::Error on
  // invalid input. Detections may be in any order; among equal scores the order given here is
  // the order pycocotools would see in a results file written from the same vector.
  void add_image(ImageGroundTruth ground_truth, std::vector<Detection> detections);

  CocoEvaluation evaluate() const;

  // Forget all images, keep the classes (next validation epoch).
  void clear();

  std::size_t image_count() const { return ground_truth_.size(); }
  const std::vector<std::string>& class_names() const { return class_names_; }
  // Parallel vectors in insertion order, for the JSON writers.
  const std::vector<ImageGroundTruth>& ground_truth() const { return ground_truth_; }
  const std::vector<ImageDetections>& detections() const { return detections_; }

 private:
  std::vector<std::string> class_names_;
  std::vector<ImageGroundTruth> ground_truth_;
  std::vector<ImageDetections> detections_;
  std::unordered_set<std::int64_t> image_ids_;
};

}  // namespace libreyolo::core::eval

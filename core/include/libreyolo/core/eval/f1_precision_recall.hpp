#pragma once
// Precision and recall the way Ultralytics reports them beside mAP (its ap_per_class): per
// class, precision and recall at IoU 0.50 as curves over the confidence threshold, sampled at
// 1000 thresholds in [0, 1]; the threshold chosen is the one that maximises the mean F1 over
// classes (smoothed with a box filter of 10% of the samples), and every class reports its P
// and R there. The true and false positives are COCO's matches at IoU 0.50 (area all, up to
// 100 detections per image), so the numbers come from the same matching as the mAP.

#include <cstddef>
#include <vector>

#include "libreyolo/core/eval/image_matching.hpp"

namespace libreyolo::core::eval {

struct F1PrecisionRecall {
  // Per class, in class order; -1 for a class without instances (it takes no part).
  std::vector<double> precision;
  std::vector<double> recall;
  // Means over the classes with instances (0 when there are none), and the threshold chosen.
  double mean_precision = 0;
  double mean_recall = 0;
  double confidence = 0;
};

// `per_class[k]` holds class k's matches, one entry per image where it has objects or
// detections (as CocoEvaluator builds them).
F1PrecisionRecall f1_precision_recall(const std::vector<std::vector<ImageClassMatch>>& per_class);

}  // namespace libreyolo::core::eval

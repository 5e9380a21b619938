#pragma once
// Precision and recall the way Ultralytics reports them beside mAP (its ap_per_class): per
// class, precision and recall at IoU 0.50 as curves over the confidence threshold, sampled at
// 1000 thresholds in [0, 1]; the threshold chosen is the one that maximises the mean F1 over
// classes (smoothed with a box filter of 10% of the samples), and every class reports its P
// and R there. The true and false positives are COCO's matches at IoU 0.50 (area all, up to
// 100 detections per image), so the numbers come from the same matching as the mAP. The
// curves themselves are kept too: F1_curve.png draws them.

#include <cstddef>
#include <vector>

#include "libreyolo/core/eval/image_matching.hpp"

namespace libreyolo::core::eval {

inline constexpr std::size_t kConfidenceSamples = 1000;  // Ultralytics: np.linspace(0, 1, 1000)

// The confidence threshold of sample `index`: index / 999.
double confidence_sample(std::size_t index);

// One class's precision, recall and F1 at the kConfidenceSamples thresholds (all 0 for a class
// that was never detected). Above the highest score precision is 1 and recall 0, as in
// Ultralytics (np.interp's left=1 and left=0).
struct ClassConfidenceCurve {
  std::size_t class_index = 0;
  std::vector<double> precision;
  std::vector<double> recall;
  std::vector<double> f1;
};

// `per_class[k]` holds class k's matches, one entry per image where it has objects or
// detections (as CocoEvaluator builds them). One curve per class with instances, in class
// order: Ultralytics' classes are those of the targets.
std::vector<ClassConfidenceCurve> confidence_curves(const std::vector<std::vector<ImageClassMatch>>& per_class);

// The mean F1 over `curves` at every sample (all 0 without curves).
std::vector<double> mean_f1(const std::vector<ClassConfidenceCurve>& curves);

// Ultralytics' smooth(y, f): a box filter of round(len * f * 2) // 2 + 1 samples over `y`
// padded at both ends with its end values. `fraction` 0.1 picks the F1 threshold; the F1 plot
// draws its mean with 0.05.
std::vector<double> smoothed(const std::vector<double>& y, double fraction);

struct F1PrecisionRecall {
  // Per class, in class order; -1 for a class without instances (it takes no part).
  std::vector<double> precision;
  std::vector<double> recall;
  // Means over the classes with instances (0 when there are none), and the threshold chosen.
  double mean_precision = 0;
  double mean_recall = 0;
  double confidence = 0;
};

// P and R of each of `class_count` classes at the threshold of the best smoothed mean F1.
F1PrecisionRecall f1_precision_recall(const std::vector<ClassConfidenceCurve>& curves, std::size_t class_count);

}  // namespace libreyolo::core::eval

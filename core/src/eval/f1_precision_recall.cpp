#include "libreyolo/core/eval/f1_precision_recall.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace libreyolo::core::eval {
namespace {

constexpr double kEpsilon = 1e-16;
constexpr std::size_t kAreaAll = static_cast<std::size_t>(AreaRange::kAll);

// np.interp(-x, -conf, values, left=left): `scores` descending, x ascending in [0, 1]. Above the
// highest score the curve takes `left`; below the lowest, the last value; between two scores,
// the straight line between their values.
double interpolate(double x, const std::vector<double>& scores, const std::vector<double>& values, double left) {
  if (x > scores.front()) return left;
  if (x <= scores.back()) return values.back();
  // First index whose score is below x: the segment is [i - 1, i].
  const auto it = std::upper_bound(scores.begin(), scores.end(), x, [](double a, double b) { return a > b; });
  const auto i = static_cast<std::size_t>(it - scores.begin());
  const double s0 = scores[i - 1], s1 = scores[i];
  if (s0 == s1) return values[i];
  const double t = (s0 - x) / (s0 - s1);
  return values[i - 1] + t * (values[i] - values[i - 1]);
}

// One class's curves at the 1000 thresholds; zero curves without detections.
ClassConfidenceCurve class_curve(std::size_t class_index, const std::vector<ImageClassMatch>& images,
                                 std::size_t instances) {
  std::vector<std::pair<double, bool>> ranked;  // (score, true positive at IoU .50)
  for (const auto& image : images) {
    for (std::size_t d = 0; d < image.detection_scores.size(); ++d) {
      const auto outcome = image.outcome(d, kAreaAll, 0);
      if (outcome == DetectionOutcome::kIgnored) continue;  // matched a crowd region: neither
      ranked.emplace_back(image.detection_scores[d], outcome == DetectionOutcome::kTruePositive);
    }
  }
  ClassConfidenceCurve curve;
  curve.class_index = class_index;
  curve.precision.assign(kConfidenceSamples, 0.0);
  curve.recall.assign(kConfidenceSamples, 0.0);
  curve.f1.assign(kConfidenceSamples, 0.0);
  if (ranked.empty()) return curve;
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<double> scores, precision, recall;
  double tp = 0, fp = 0;
  for (const auto& [score, true_positive] : ranked) {
    (true_positive ? tp : fp) += 1;
    scores.push_back(score);
    recall.push_back(tp / (static_cast<double>(instances) + kEpsilon));
    precision.push_back(tp / (tp + fp));
  }
  for (std::size_t j = 0; j < kConfidenceSamples; ++j) {
    const double x = confidence_sample(j);
    const double p = interpolate(x, scores, precision, 1.0), r = interpolate(x, scores, recall, 0.0);
    curve.precision[j] = p;
    curve.recall[j] = r;
    curve.f1[j] = 2 * p * r / (p + r + kEpsilon);
  }
  return curve;
}

}  // namespace

double confidence_sample(std::size_t index) { return static_cast<double>(index) / (kConfidenceSamples - 1); }

std::vector<ClassConfidenceCurve> confidence_curves(const std::vector<std::vector<ImageClassMatch>>& per_class) {
  std::vector<ClassConfidenceCurve> curves;
  for (std::size_t k = 0; k < per_class.size(); ++k) {
    std::size_t instances = 0;
    for (const auto& image : per_class[k]) instances += image.counted_ground_truths[kAreaAll];
    if (instances > 0) curves.push_back(class_curve(k, per_class[k], instances));
  }
  return curves;
}

std::vector<double> mean_f1(const std::vector<ClassConfidenceCurve>& curves) {
  std::vector<double> mean(kConfidenceSamples, 0.0);
  for (const auto& c : curves) {
    for (std::size_t j = 0; j < kConfidenceSamples; ++j) mean[j] += c.f1[j] / static_cast<double>(curves.size());
  }
  return mean;
}

std::vector<double> smoothed(const std::vector<double>& y, double fraction) {
  if (y.empty()) return {};
  // Python's round() rounds halves to even, as nearbyint does in the default rounding mode.
  const auto width = static_cast<std::size_t>(std::nearbyint(static_cast<double>(y.size()) * fraction * 2)) / 2 + 1;
  const std::size_t pad = width / 2;
  std::vector<double> padded(pad, y.front());
  padded.insert(padded.end(), y.begin(), y.end());
  padded.insert(padded.end(), pad, y.back());
  // np.convolve(padded, ones(width) / width, mode="valid")
  std::vector<double> out;
  for (std::size_t i = 0; i + width <= padded.size(); ++i) {
    double sum = 0;
    for (std::size_t k = 0; k < width; ++k) sum += padded[i + k];
    out.push_back(sum / static_cast<double>(width));
  }
  return out;
}

F1PrecisionRecall f1_precision_recall(const std::vector<ClassConfidenceCurve>& curves, std::size_t class_count) {
  F1PrecisionRecall result;
  result.precision.assign(class_count, -1.0);
  result.recall.assign(class_count, -1.0);
  if (curves.empty()) return result;
  const auto smooth = smoothed(mean_f1(curves), 0.1);
  // An even filter width would give one sample more than the curves have: never past the last.
  const auto best = std::min(kConfidenceSamples - 1, static_cast<std::size_t>(
                                                         std::max_element(smooth.begin(), smooth.end()) - smooth.begin()));
  result.confidence = confidence_sample(best);
  const auto classes = static_cast<double>(curves.size());
  for (const auto& c : curves) {
    result.precision[c.class_index] = c.precision[best];
    result.recall[c.class_index] = c.recall[best];
    result.mean_precision += c.precision[best] / classes;
    result.mean_recall += c.recall[best] / classes;
  }
  return result;
}

}  // namespace libreyolo::core::eval

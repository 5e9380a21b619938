#include "libreyolo/core/eval/f1_precision_recall.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

namespace libreyolo::core::eval {
namespace {

constexpr std::size_t kThresholds = 1000;  // Ultralytics: np.linspace(0, 1, 1000)
constexpr double kEpsilon = 1e-16;
constexpr std::size_t kAreaAll = static_cast<std::size_t>(AreaRange::kAll);

struct ClassCurves {
  std::array<double, kThresholds> precision{};
  std::array<double, kThresholds> recall{};
};

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

// One class's precision and recall at the 1000 thresholds; zero curves without detections.
ClassCurves class_curves(const std::vector<ImageClassMatch>& images, std::size_t instances) {
  std::vector<std::pair<double, bool>> ranked;  // (score, true positive at IoU .50)
  for (const auto& image : images) {
    for (std::size_t d = 0; d < image.detection_scores.size(); ++d) {
      const auto outcome = image.outcome(d, kAreaAll, 0);
      if (outcome == DetectionOutcome::kIgnored) continue;  // matched a crowd region: neither
      ranked.emplace_back(image.detection_scores[d], outcome == DetectionOutcome::kTruePositive);
    }
  }
  ClassCurves curves;
  if (ranked.empty()) return curves;
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<double> scores, precision, recall;
  double tp = 0, fp = 0;
  for (const auto& [score, true_positive] : ranked) {
    (true_positive ? tp : fp) += 1;
    scores.push_back(score);
    recall.push_back(tp / (static_cast<double>(instances) + kEpsilon));
    precision.push_back(tp / (tp + fp));
  }
  for (std::size_t j = 0; j < kThresholds; ++j) {
    const double x = static_cast<double>(j) / (kThresholds - 1);
    curves.precision[j] = interpolate(x, scores, precision, 1.0);
    curves.recall[j] = interpolate(x, scores, recall, 0.0);
  }
  return curves;
}

// Ultralytics' smooth(y, 0.1): a box filter of 101 samples, the ends padded with the end values.
std::array<double, kThresholds> smooth(const std::array<double, kThresholds>& y) {
  constexpr std::size_t width = kThresholds / 10 + 1;  // round(1000 * 0.1 * 2) // 2 + 1 = 101
  constexpr std::size_t half = width / 2;
  std::array<double, kThresholds> out{};
  for (std::size_t i = 0; i < kThresholds; ++i) {
    double sum = 0;
    for (std::size_t k = 0; k < width; ++k) {
      const auto at = static_cast<long>(i + k) - static_cast<long>(half);
      sum += y[static_cast<std::size_t>(std::clamp<long>(at, 0, kThresholds - 1))];
    }
    out[i] = sum / width;
  }
  return out;
}

}  // namespace

F1PrecisionRecall f1_precision_recall(const std::vector<std::vector<ImageClassMatch>>& per_class) {
  F1PrecisionRecall result;
  result.precision.assign(per_class.size(), -1.0);
  result.recall.assign(per_class.size(), -1.0);
  std::vector<std::size_t> present;
  std::vector<ClassCurves> curves;
  for (std::size_t k = 0; k < per_class.size(); ++k) {
    std::size_t instances = 0;
    for (const auto& image : per_class[k]) instances += image.counted_ground_truths[kAreaAll];
    if (instances == 0) continue;  // Ultralytics' classes are those of the targets
    present.push_back(k);
    curves.push_back(class_curves(per_class[k], instances));
  }
  if (present.empty()) return result;
  std::array<double, kThresholds> mean_f1{};
  for (const auto& c : curves) {
    for (std::size_t j = 0; j < kThresholds; ++j) {
      const double p = c.precision[j], r = c.recall[j];
      mean_f1[j] += 2 * p * r / (p + r + kEpsilon) / static_cast<double>(curves.size());
    }
  }
  const auto smoothed = smooth(mean_f1);
  const auto best = static_cast<std::size_t>(std::max_element(smoothed.begin(), smoothed.end()) - smoothed.begin());
  result.confidence = static_cast<double>(best) / (kThresholds - 1);
  for (std::size_t i = 0; i < present.size(); ++i) {
    result.precision[present[i]] = curves[i].precision[best];
    result.recall[present[i]] = curves[i].recall[best];
    result.mean_precision += curves[i].precision[best] / static_cast<double>(present.size());
    result.mean_recall += curves[i].recall[best] / static_cast<double>(present.size());
  }
  return result;
}

}  // namespace libreyolo::core::eval

#include "libreyolo/core/eval/precision_recall.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace libreyolo::core::eval {
namespace {

// numpy's spacing(1): pycocotools adds it to the precision denominator. It only changes the
// last bit when tp + fp == 1, but keeping it makes our numbers identical, not just close.
constexpr double kPrecisionEpsilon = std::numeric_limits<double>::epsilon();

// A detection's entry in the class-wide ranking. Its outcomes are copied in (16 bytes) so the
// pass over the ranking reads memory in order instead of jumping between images.
struct RankedDetection {
  double score;
  std::uint32_t rank_in_image;  // 0 = the image's best; maxDets cuts on this
  std::array<ThresholdOutcomes, kAreaRangeCount> outcomes;
};

// Every evaluated detection of one class pooled over images and ranked by score; stable, so
// ties keep image order, then per-image rank. The ranking for a smaller maxDets is this list
// filtered to rank_in_image < maxDets: filtering keeps the relative order of a stable sort.
std::vector<RankedDetection> rank_pooled_detections(const std::vector<ImageClassMatch>& images) {
  std::size_t total = 0;
  for (const ImageClassMatch& image : images) total += image.detection_scores.size();
  std::vector<RankedDetection> ranked;
  ranked.reserve(total);
  for (const ImageClassMatch& image : images) {
    for (std::size_t d = 0; d < image.detection_scores.size(); ++d) {
      RankedDetection entry{image.detection_scores[d], static_cast<std::uint32_t>(d), {}};
      for (std::size_t a = 0; a < kAreaRangeCount; ++a) entry.outcomes[a] = image.outcomes_of(d, a);
      ranked.push_back(entry);
    }
  }
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const RankedDetection& a, const RankedDetection& b) { return a.score > b.score; });
  return ranked;
}

struct CurvePoint {
  double recall;
  double precision;
};

// The 10 precision/recall curves (one per IoU threshold) of one area range, built in a single
// pass over the ranking. pycocotools keeps recall and precision at every rank; only the first
// rank and the true-positive ranks matter, because
//  - recall only grows at a true positive, so the first rank reaching a recall threshold is
//    the first rank or a true positive;
//  - precision never grows at a false positive or an ignored detection, so the running
//    maximum from the right is always attained at one of those ranks too.
// Keeping just those points gives the same doubles with memory bounded by the object count.
class AreaRangeCurves {
 public:
  void reset() {
    false_positives_everywhere_ = 0;
    true_positives_.fill(0);
    false_positives_.fill(0);
    for (auto& points : points_) points.clear();
  }

  void add(const ThresholdOutcomes& outcome, bool first_rank, double counted_ground_truths) {
    // The bulk of low-score detections: a false positive at every threshold. Counted once.
    if (outcome.true_positive == 0 && outcome.false_positive == kAllIouThresholds && !first_rank) {
      ++false_positives_everywhere_;
      return;
    }
    for (std::size_t t = 0; t < kIouThresholdCount; ++t) {
      // Ignored detections (in neither set) take a rank but add to neither count.
      const bool true_positive = (outcome.true_positive >> t) & 1u;
      true_positives_[t] += true_positive ? 1 : 0;
      false_positives_[t] += (outcome.false_positive >> t) & 1u;
      if (true_positive || first_rank) {
        // Integer counts, as in pycocotools' cumsums; divided where pycocotools divides.
        const auto tp = static_cast<double>(true_positives_[t]);
        const auto fp = static_cast<double>(false_positives_[t] + false_positives_everywhere_);
        points_[t].push_back({tp / counted_ground_truths, tp / (fp + tp + kPrecisionEpsilon)});
      }
    }
  }

  // Interpolated precision of threshold t at the 101 recall thresholds; returns its final
  // recall (0 when nothing was ranked).
  double finish(std::size_t t, std::size_t ranks, double counted_ground_truths,
                std::array<double, kRecallThresholdCount>& sampled) {
    std::vector<CurvePoint>& points = points_[t];
    for (std::size_t i = points.size(); i-- > 1;) {
      points[i - 1].precision = std::max(points[i - 1].precision, points[i].precision);
    }
    // searchsorted(recall, thresholds, side='left'); thresholds never reached keep 0.
    const auto& thresholds = recall_thresholds();
    std::size_t point = 0;
    for (std::size_t r = 0; r < kRecallThresholdCount; ++r) {
      while (point < points.size() && points[point].recall < thresholds[r]) ++point;
      sampled[r] = point < points.size() ? points[point].precision : 0.0;
    }
    return ranks > 0 ? static_cast<double>(true_positives_[t]) / counted_ground_truths : 0.0;
  }

 private:
  std::uint32_t false_positives_everywhere_ = 0;
  std::array<std::uint32_t, kIouThresholdCount> true_positives_{};
  std::array<std::uint32_t, kIouThresholdCount> false_positives_{};
  std::array<std::vector<CurvePoint>, kIouThresholdCount> points_;
};

}  // namespace

PrecisionRecallTable::PrecisionRecallTable(std::size_t class_count)
    : class_count_(class_count),
      precision_(kIouThresholdCount * class_count * kAreaRangeCount * kMaxDetectionsCount *
                     kRecallThresholdCount,
                 -1.0),
      recall_(kIouThresholdCount * class_count * kAreaRangeCount * kMaxDetectionsCount, -1.0) {}

std::size_t PrecisionRecallTable::recall_slot(std::size_t iou_index, std::size_t class_index,
                                              AreaRange area,
                                              std::size_t max_detections_index) const {
  const auto area_index = static_cast<std::size_t>(area);
  return ((class_index * kAreaRangeCount + area_index) * kMaxDetectionsCount +
          max_detections_index) *
             kIouThresholdCount +
         iou_index;
}

double PrecisionRecallTable::precision(std::size_t iou_index, std::size_t recall_index,
                                       std::size_t class_index, AreaRange area,
                                       std::size_t max_detections_index) const {
  return precision_[recall_slot(iou_index, class_index, area, max_detections_index) *
                        kRecallThresholdCount +
                    recall_index];
}

double PrecisionRecallTable::recall(std::size_t iou_index, std::size_t class_index, AreaRange area,
                                    std::size_t max_detections_index) const {
  return recall_[recall_slot(iou_index, class_index, area, max_detections_index)];
}

void PrecisionRecallTable::set_precision(std::size_t iou_index, std::size_t recall_index,
                                         std::size_t class_index, AreaRange area,
                                         std::size_t max_detections_index, double value) {
  precision_[recall_slot(iou_index, class_index, area, max_detections_index) *
                 kRecallThresholdCount +
             recall_index] = value;
}

void PrecisionRecallTable::set_recall(std::size_t iou_index, std::size_t class_index,
                                      AreaRange area, std::size_t max_detections_index,
                                      double value) {
  recall_[recall_slot(iou_index, class_index, area, max_detections_index)] = value;
}

PrecisionRecallTable accumulate_precision_recall(
    const std::vector<std::vector<ImageClassMatch>>& per_class) {
  PrecisionRecallTable table(per_class.size());
  std::array<AreaRangeCurves, kAreaRangeCount> curves;
  std::array<double, kRecallThresholdCount> sampled{};

  for (std::size_t k = 0; k < per_class.size(); ++k) {
    const std::vector<ImageClassMatch>& images = per_class[k];
    if (images.empty()) continue;  // class never appears: stays -1 everywhere

    std::array<double, kAreaRangeCount> counted{};
    for (const ImageClassMatch& image : images) {
      for (std::size_t a = 0; a < kAreaRangeCount; ++a) {
        counted[a] += static_cast<double>(image.counted_ground_truths[a]);
      }
    }
    const std::vector<RankedDetection> ranked = rank_pooled_detections(images);

    for (std::size_t m = 0; m < kMaxDetectionsCount; ++m) {
      const auto max_detections = static_cast<std::uint32_t>(kMaxDetections[m]);
      for (AreaRangeCurves& area_curves : curves) area_curves.reset();

      std::size_t ranks = 0;
      for (const RankedDetection& entry : ranked) {
        if (entry.rank_in_image >= max_detections) continue;
        for (std::size_t a = 0; a < kAreaRangeCount; ++a) {
          if (counted[a] == 0.0) continue;
          curves[a].add(entry.outcomes[a], ranks == 0, counted[a]);
        }
        ++ranks;
      }

      for (std::size_t a = 0; a < kAreaRangeCount; ++a) {
        // Nothing to find in this range: precision is undefined and stays -1, so the class
        // is left out of this range's mean instead of dragging it to zero.
        if (counted[a] == 0.0) continue;
        const auto area = static_cast<AreaRange>(a);
        for (std::size_t t = 0; t < kIouThresholdCount; ++t) {
          table.set_recall(t, k, area, m, curves[a].finish(t, ranks, counted[a], sampled));
          for (std::size_t r = 0; r < kRecallThresholdCount; ++r) {
            table.set_precision(t, r, k, area, m, sampled[r]);
          }
        }
      }
    }
  }
  return table;
}

}  // namespace libreyolo::core::eval

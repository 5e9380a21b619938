#include "libreyolo/core/eval/image_matching.hpp"

#include <algorithm>
#include <numeric>

#include "libreyolo/core/eval/box_iou.hpp"

namespace libreyolo::core::eval {
namespace {

// pycocotools caps the running best IoU just below 1 so a threshold of 1.0 could still match a
// perfect box; kept for fidelity although no COCO threshold reaches it.
constexpr double kIouCap = 1.0 - 1e-10;

bool outside(double area, const AreaBounds& range) {
  return area < range.min_area || area > range.max_area;
}

// Per-pair data shared by the four area ranges, and buffers reused between them.
struct MatchScratch {
  std::vector<double> ious;             // [detection x ground truth], input gt order
  std::vector<double> best_ious;        // per detection: its highest IoU with any gt
  std::vector<double> detection_areas;  // box w * h: results files carry no area
  std::vector<std::size_t> candidates;  // detections that overlap some gt enough to match

  std::vector<std::uint8_t> ignored;
  std::vector<std::size_t> visit_order;
  std::vector<std::uint8_t> taken;
};

// Greedy matching for one area range, writing that range's outcomes into `match`. Ground
// truths are visited with the ignored ones last, as pycocotools sorts them.
void match_area_range(const std::vector<const GroundTruthObject*>& ground_truths,
                      std::size_t area_index, MatchScratch& scratch, ImageClassMatch& match) {
  const AreaBounds& range = area_ranges()[area_index];
  const std::size_t ground_truth_count = ground_truths.size();

  scratch.ignored.resize(ground_truth_count);
  for (std::size_t g = 0; g < ground_truth_count; ++g) {
    const GroundTruthObject& object = *ground_truths[g];
    scratch.ignored[g] = object.iscrowd || outside(object.evaluation_area(), range);
  }
  const auto& ignored = scratch.ignored;
  scratch.visit_order.resize(ground_truth_count);
  std::iota(scratch.visit_order.begin(), scratch.visit_order.end(), std::size_t{0});
  std::stable_sort(scratch.visit_order.begin(), scratch.visit_order.end(),
                   [&](std::size_t a, std::size_t b) { return ignored[a] < ignored[b]; });
  match.counted_ground_truths[area_index] =
      static_cast<std::size_t>(std::count(ignored.begin(), ignored.end(), std::uint8_t{0}));

  const std::size_t detection_count = scratch.detection_areas.size();
  const auto& ious = scratch.ious;
  const auto& thresholds = iou_thresholds();

  // A detection whose best overlap is below the lowest threshold can never match: its outcome
  // is the same at all thresholds (false positive, or ignored when its size is outside the
  // range) and is settled here. Most low-score detections are like that, so the
  // per-threshold loop below visits only the few candidates, still in score order.
  scratch.candidates.clear();
  for (std::size_t d = 0; d < detection_count; ++d) {
    if (scratch.best_ious[d] >= std::min(thresholds.front(), kIouCap)) {
      scratch.candidates.push_back(d);
    } else if (!outside(scratch.detection_areas[d], range)) {
      match.outcomes[d * kAreaRangeCount + area_index].false_positive = kAllIouThresholds;
    }
  }

  for (std::size_t t = 0; t < kIouThresholdCount; ++t) {
    scratch.taken.assign(ground_truth_count, 0);
    for (std::size_t d : scratch.candidates) {
      double best_iou = std::min(thresholds[t], kIouCap);
      std::ptrdiff_t best = -1;
      // Same shortcut per threshold: no overlap reaches it, no scan needed.
      if (scratch.best_ious[d] >= best_iou) {
        for (std::size_t g : scratch.visit_order) {
          // A crowd region may absorb any number of detections; a real object only one.
          if (scratch.taken[g] && !ground_truths[g]->iscrowd) continue;
          // Once a real object is matched, ignored ground truths (sorted last) cannot win.
          if (best >= 0 && !ignored[static_cast<std::size_t>(best)] && ignored[g]) break;
          const double iou = ious[d * ground_truth_count + g];
          // `>=` on purpose: among equal IoUs the later ground truth wins, as in pycocotools.
          if (iou < best_iou) continue;
          best_iou = iou;
          best = static_cast<std::ptrdiff_t>(g);
        }
      }

      ThresholdOutcomes& outcome = match.outcomes[d * kAreaRangeCount + area_index];
      const auto bit = static_cast<std::uint16_t>(1u << t);
      if (best >= 0) {
        const auto matched = static_cast<std::size_t>(best);
        scratch.taken[matched] = 1;
        // Matching a crowd region or an object outside the area range neither helps nor hurts.
        if (!ignored[matched]) outcome.true_positive |= bit;
      } else if (!outside(scratch.detection_areas[d], range)) {
        // Unmatched: a false positive, unless its size is not this range's business.
        outcome.false_positive |= bit;
      }
    }
  }
}

}  // namespace

ImageClassMatch match_image_class(const std::vector<const Detection*>& detections,
                                  const std::vector<const GroundTruthObject*>& ground_truths) {
  // Highest score first; stable so equal scores keep input order (numpy mergesort on -score).
  std::vector<const Detection*> ranked = detections;
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Detection* a, const Detection* b) { return a->score > b->score; });
  const auto keep = static_cast<std::size_t>(kMaxDetections[kMaxDetectionsLargestIndex]);
  if (ranked.size() > keep) ranked.resize(keep);

  ImageClassMatch match;
  match.detection_scores.reserve(ranked.size());
  for (const Detection* detection : ranked) match.detection_scores.push_back(detection->score);
  match.outcomes.resize(ranked.size() * kAreaRangeCount);

  MatchScratch scratch;
  const std::size_t ground_truth_count = ground_truths.size();
  scratch.ious.resize(ranked.size() * ground_truth_count);
  scratch.best_ious.assign(ranked.size(), 0.0);
  scratch.detection_areas.resize(ranked.size());
  for (std::size_t d = 0; d < ranked.size(); ++d) {
    scratch.detection_areas[d] = ranked[d]->box.area();
    for (std::size_t g = 0; g < ground_truth_count; ++g) {
      const double iou =
          coco_box_iou(ranked[d]->box, ground_truths[g]->box, ground_truths[g]->iscrowd);
      scratch.ious[d * ground_truth_count + g] = iou;
      scratch.best_ious[d] = std::max(scratch.best_ious[d], iou);
    }
  }

  for (std::size_t a = 0; a < kAreaRangeCount; ++a) {
    match_area_range(ground_truths, a, scratch, match);
  }
  return match;
}

}  // namespace libreyolo::core::eval

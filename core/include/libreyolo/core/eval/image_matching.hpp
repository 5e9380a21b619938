#pragma once
// Step one of COCO scoring (pycocotools' evaluateImg): inside one image and for one class,
// decide for every detection and every IoU threshold whether it is a true positive, a false
// positive, or ignored, separately for each object-area range.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "libreyolo/core/eval/coco_params.hpp"
#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::eval {

enum class DetectionOutcome : std::uint8_t { kFalsePositive, kTruePositive, kIgnored };

// One detection's outcome in one area range at all 10 IoU thresholds, as bit sets (bit t is
// threshold t). In neither set: ignored at that threshold. Bit sets keep a detection's result
// for all four area ranges in 16 bytes, and let pooling (precision_recall.cpp) handle the
// common "false positive everywhere" detection in one step.
struct ThresholdOutcomes {
  std::uint16_t true_positive = 0;
  std::uint16_t false_positive = 0;
};

inline constexpr std::uint16_t kAllIouThresholds = (1u << kIouThresholdCount) - 1;

struct ImageClassMatch {
  // Scores of the evaluated detections, highest first (ties keep their input order), cut to the
  // largest maxDets (100): pycocotools drops the rest before matching.
  std::vector<double> detection_scores;
  // [detection][area range], detections in the order of `detection_scores`.
  std::vector<ThresholdOutcomes> outcomes;
  // Per area range, the ground truths that must be found there (not crowd, area inside the
  // range): the denominator of recall.
  std::array<std::size_t, kAreaRangeCount> counted_ground_truths{};

  const ThresholdOutcomes& outcomes_of(std::size_t detection, std::size_t area_index) const {
    return outcomes[detection * kAreaRangeCount + area_index];
  }

  DetectionOutcome outcome(std::size_t detection, std::size_t area_index,
                           std::size_t iou_index) const {
    const ThresholdOutcomes& bits = outcomes_of(detection, area_index);
    if ((bits.true_positive >> iou_index) & 1u) return DetectionOutcome::kTruePositive;
    if ((bits.false_positive >> iou_index) & 1u) return DetectionOutcome::kFalsePositive;
    return DetectionOutcome::kIgnored;
  }
};

// `detections` and `ground_truths` are one image's objects of one class, in input order (the
// order breaks score ties, exactly as in pycocotools). Callers skip pairs where both are empty:
// such a pair contributes nothing to COCO scores.
ImageClassMatch match_image_class(const std::vector<const Detection*>& detections,
                                  const std::vector<const GroundTruthObject*>& ground_truths);

}  // namespace libreyolo::core::eval

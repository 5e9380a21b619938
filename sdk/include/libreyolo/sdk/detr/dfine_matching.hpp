#pragma once
// D-FINE's matching (LibreYOLO's models/dfine/matcher.py and the GO-LSD union of loss.py; DEIM
// matches the same way): the HungarianMatcher's cost with D-FINE's box conventions, and the
// union of the matches of several prediction sets that D-FINE's box and localisation losses use.
// The solver is detr::match_batched (one host copy for every matrix of a step).

#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

// The cost weights and focal parameters of LibreYOLO's D-FINE matcher.
struct DfineMatchingWeights {
  double cost_class = 2.0, cost_bbox = 5.0, cost_giou = 2.0;
  double alpha = 0.25, gamma = 2.0;
};

// logits [B, Q, C], boxes [B, Q, 4] and gt_boxes [B, M, 4] normalised cx, cy, w, h, gt_labels [B, M]
// (integral) -> [B, Q, M]: cost_bbox * L1 + cost_class * focal cost + cost_giou * (-GIoU), each
// image against its own padded GTs, GIoU as dfine_generalized_box_iou (sizes clamped at 0, no
// eps). NaN entries become 1.0 (the matcher's nan_to_num: infinities become the largest finite
// floats), so a diverged prediction is still matched instead of stopping the solver. Without
// gradient; padding columns hold values to be ignored.
LIBREYOLO_SDK_API torch::Tensor dfine_matching_cost(const torch::Tensor& logits, const torch::Tensor& boxes,
                                                    const torch::Tensor& gt_labels, const torch::Tensor& gt_boxes,
                                                    const DfineMatchingWeights& weights = {});

// GO-LSD's union of matches: matched [S, B, Q] (the GT index per query of S prediction sets, -1
// for none, as match_batched returns them) and the padded GT count M -> [B, Q] int64. A query
// matched in any set keeps the GT it was matched to most often; ties go to the lowest GT index.
// That is LibreYOLO's _get_go_indices: it counts the distinct (query, GT) pairs, orders them
// by count with a stable sort of the lexicographically ordered pairs, and lets each query keep
// its first pair. A GT may end up with several queries. On the device, without a host read.
LIBREYOLO_SDK_API torch::Tensor union_of_matches(const torch::Tensor& matched, int64_t max_gt);

}  // namespace libreyolo::sdk::detr

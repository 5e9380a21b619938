#pragma once
// Predictions of S sets paired with the ground truth their queries were matched to, in the
// padded layout (no list of matched queries is ever built: that would read the device). Where
// LibreYOLO indexes the matched rows out, these keep every query and a mask; unmatched rows
// carry a stand-in unit box on both sides, so whatever a padding GT or an unmatched prediction
// holds (a zero-size box, a NaN) never reaches a value or a gradient.

#include <torch/types.h>

#include "criterion_ground_truth.hpp"

namespace libreyolo::dfine {

struct MatchedPairs {
  torch::Tensor mask;         // [S, B, Q] bool: the query is matched
  torch::Tensor labels;       // [S, B, Q] int64: its GT's class (row 0's for unmatched queries)
  torch::Tensor pred, target; // [S, B, Q, 4] cx, cy, w, h (unit box where unmatched); pred keeps its gradient
  torch::Tensor pred_xyxy, target_xyxy;  // the same as x1, y1, x2, y2 (sizes clamped at 0)
  torch::Tensor iou;          // [S, B, Q] detached IoU of the pairs, 0 where unmatched
};

// boxes [S, B, Q, 4] cx, cy, w, h; matched [S, B, Q] GT index or -1.
MatchedPairs pair_with_ground_truth(const torch::Tensor& boxes, const torch::Tensor& matched,
                                    const CriterionGroundTruth& gt);

// The unnormalised sums of LibreYOLO's loss_labels_vfl and loss_boxes per set, [S] each.
torch::Tensor varifocal_sum(const torch::Tensor& logits, const MatchedPairs& pairs, double alpha, double gamma);
torch::Tensor l1_sum(const MatchedPairs& pairs);
torch::Tensor giou_loss_sum(const MatchedPairs& pairs);

}  // namespace libreyolo::dfine

#pragma once
// SimOTA label assignment (YOLOX, Ge et al. 2021) as LibreYOLO's YOLOXHead.get_assignments does
// it, vectorised over the padded batch: every step is a tensor op on [B, M, A] (images x
// ground-truth rows x anchors) with shapes fixed by B, M and A, no per-image or per-gt loop, no
// host synchronisation. Padding rows never take anchors.
//
// Per image, for gts g and anchors a (anchor centre = (grid + 0.5) * stride):
// 1. centre prior: a is in g's centre region when its centre lies strictly inside the square of
//    half-side center_radius * stride(a) around g's centre. Candidates: anchors in the centre
//    region of at least one gt of the image; other anchors are never assigned.
// 2. cost(g, a) = sum_c BCE(score(a, c), onehot(g)_c) + iou_weight * -log(IoU(g, a) + 1e-8)
//                 + outside_center_cost * [a not in g's centre region],
//    score = sqrt(sigmoid(cls) * sigmoid(obj)) (the caller passes it), BCE's log clamped at -100.
// 3. dynamic k(g) = max(1, int(sum of g's top-`candidate_topk` IoUs over the candidates)).
// 4. g takes its k(g) lowest-cost candidates.
// 5. an anchor taken by several gts keeps the gt of lowest cost (over all the image's gts).
// Stages 1-2 and 4-5 are the SDK's (libreyolo/sdk/losses/simota_cost.hpp and simota_selection.hpp,
// fused CUDA kernels where the fused_kernels policy allows them); 3 is here.

#include <torch/types.h>

#include <cstdint>

namespace libreyolo::families::yolox {

struct SimOtaOptions {
  double center_radius = 1.5;          // in strides
  int64_t candidate_topk = 10;         // IoUs summed for the dynamic k
  double iou_weight = 3.0;             // weight of the IoU cost
  double outside_center_cost = 1.0e6;  // added where the anchor is outside the gt's centre region
};

struct SimOtaAssignment {
  torch::Tensor foreground;  // [B, A] bool
  torch::Tensor gt_index;    // [B, A] int64: row of the assigned gt in the padded targets (0 if none)
  torch::Tensor iou;         // [B, A] float32: IoU of the anchor's prediction with its gt (0 if none)
  torch::Tensor dynamic_k;   // [B, M] int64: k per gt (0 for padding rows)
  torch::Tensor candidates;  // [B, A] bool: anchors inside some gt's centre region
};

// pred_boxes [B, A, 4] (cx, cy, w, h) and gt_boxes [B, M, 4] (cx, cy, w, h) in input pixels;
// pred_scores [B, A, C] probabilities; grid [A, 2] (col, row) and strides [A, 1] or [A] as
// make_grid() gives them; gt_labels [B, M] (any numeric dtype, clamped into [0, C)); gt_valid
// [B, M] bool (sdk::valid_mask). Runs without autograd in float32.
SimOtaAssignment simota_assign(const torch::Tensor& pred_boxes, const torch::Tensor& pred_scores,
                               const torch::Tensor& grid, const torch::Tensor& strides, const torch::Tensor& gt_boxes,
                               const torch::Tensor& gt_labels, const torch::Tensor& gt_valid,
                               const SimOtaOptions& options = {});

}  // namespace libreyolo::families::yolox

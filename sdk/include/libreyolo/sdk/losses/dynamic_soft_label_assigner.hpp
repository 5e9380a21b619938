#pragma once
// Dynamic soft-label assignment (RTMDet; mmyolo's BatchDynamicSoftLabelAssigner, as LibreYOLO's
// rtmdet/loss.py ports it), vectorised over the padded batch: every step is a tensor op on
// [B, A, M] (images x priors x ground-truth rows); no per-image or per-GT loop, no host
// synchronisation, and shapes depend only on B, A, M and C.
//
// Per (prior, gt) pair, with IoU = IoU(predicted box, gt box) and x = the prior's logit of the
// gt's class:
//   cost = BCE-with-logits(x, IoU) * |IoU - sigmoid(x)|^2          (soft classification cost)
//        + iou_weight * -log(IoU + 1e-7)                             (localisation cost)
//        + 10^(|prior - gt centre| / stride - soft_center_radius)    (soft centre prior)
// 1. candidates: priors strictly inside at least one valid gt; every other prior costs 1e8 for
//    every gt (it can still be taken, by a gt whose k exceeds the image's candidates);
// 2. dynamic k per gt: max(1, floor(sum of the gt's top-`topk` IoUs over all priors));
// 3. each valid gt takes its k cheapest priors;
// 4. a prior taken by several gts keeps the gt of lowest cost in its whole cost row (see the
//    source for what that means for padding rows).

#include <torch/types.h>

#include <cstdint>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::losses {

// Defaults are RTMDet's (mmyolo, LibreYOLO).
struct DynamicSoftLabelAssignerOptions {
  int64_t topk = 13;  // how many of a gt's best IoUs are summed into its dynamic k
  double iou_weight = 3.0;
  double soft_center_radius = 3.0;
};

struct SoftLabelAssignment {
  torch::Tensor labels;      // [B, A] int64: the assigned gt's class, num_classes for background
  torch::Tensor boxes;       // [B, A, 4] float32 xyxy of the assigned gt (zeros for background)
  torch::Tensor metrics;     // [B, A] float32: IoU of the prediction with its assigned gt (0 for background)
  torch::Tensor foreground;  // [B, A] bool
  torch::Tensor gt_index;    // [B, A] int64: row of the assigned gt in the padded targets (0 for background)
};

// pred_boxes [B, A, 4] xyxy and pred_logits [B, A, C] (detached by the caller; any float dtype);
// priors [A, 2] (x, y) in input pixels (RTMDet: cell corners, make_anchors offset 0);
// prior_strides [A] or [A, 1]; gt_boxes [B, M, 4] xyxy in the same pixels; gt_labels [B, M]
// integer classes (clamped into [0, C)); gt_valid [B, M] bool, false on padding rows (what
// sdk::valid_mask gives; what padding rows hold does not matter: they are read as the zero box
// of class 0 that LibreYOLO pads with). Runs under NoGradGuard, in float32.
LIBREYOLO_SDK_API SoftLabelAssignment dynamic_soft_label_assign(
    const torch::Tensor& pred_boxes, const torch::Tensor& pred_logits, const torch::Tensor& priors,
    const torch::Tensor& prior_strides, const torch::Tensor& gt_boxes, const torch::Tensor& gt_labels,
    const torch::Tensor& gt_valid, int64_t num_classes, const DynamicSoftLabelAssignerOptions& options = {});

}  // namespace libreyolo::sdk::losses

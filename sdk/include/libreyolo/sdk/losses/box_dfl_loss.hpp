#pragma once
// YOLOv9's two box losses over every anchor, summed: the CIoU loss (1 - CIoU) and the
// distribution focal loss (DFL, mean over the four sides), each weighted per anchor (the
// assigner's score sum: zero on background anchors, whose target is a stand-in). Composed
// PyTorch ops (box_iou, bbox_to_distance, dfl_loss: about 60 launches each way) unless the
// fused_kernels policy allows `box_dfl_loss`, whose kernels take one launch forward and one
// backward (docs/fused-kernels.md, "Box losses"). The fused path equals the composed one within
// float32 rounding, not bit for bit (its softmax and sums group differently).

#include <torch/types.h>

#include <string>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::losses {

struct BoxDflInputs {
  torch::Tensor logits;        // [B, A, 4, reg_max]: each side's bins (float32; any strides)
  torch::Tensor pred_boxes;    // [B, A, 4] x1 y1 x2 y2 decoded from them (distance_to_bbox of dfl_decode):
                               // the composed path reads these (decoded once, shared with the assigner)
  torch::Tensor points;        // [A, 2] anchor points
  torch::Tensor target_boxes;  // [B, A, 4] x1 y1 x2 y2, in the points' units
  torch::Tensor weight;        // [B, A]
  double max_distance = 0;     // the target distances' clamp (reg_max - 1.01 for YOLOv9)
};

struct BoxDflSums {
  torch::Tensor box;  // sum((1 - CIoU) * weight), a scalar
  torch::Tensor dfl;  // sum(mean over sides of DFL * weight), a scalar
};

LIBREYOLO_SDK_API BoxDflSums box_dfl_loss(const BoxDflInputs& in);

// Why the fused kernels would not take `in`, whatever the policy ("" when they would).
LIBREYOLO_SDK_API std::string box_dfl_loss_refusal(const BoxDflInputs& in);

}  // namespace libreyolo::sdk::losses

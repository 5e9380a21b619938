#pragma once
// The fused SimOTA cost's launch description and its one composed input, shared by the CUDA
// wrapper (simota_cost_fused.cpp) and the unit test that runs the kernel's code on the CPU;
// compiles without CUDA.

#include <torch/torch.h>

#include "../cuda/simota_cost_kernels.hpp"
#include "libreyolo/sdk/losses/simota_cost.hpp"

namespace libreyolo::sdk::losses {

inline fused::SimOtaCostShape simota_cost_shape(const SimOtaCostInputs& in, const SimOtaCostOptions& options) {
  fused::SimOtaCostShape s;
  s.batch = in.pred_scores.size(0);
  s.anchors = in.pred_scores.size(1);
  s.rows = in.gt_boxes.size(1);
  for (int d = 0; d < 3; ++d) s.score_strides[d] = in.pred_scores.stride(d);
  // The double options become float32 where PyTorch hands a scalar to a float op.
  s.center_radius = static_cast<float>(options.center_radius);
  s.iou_weight = static_cast<float>(options.iou_weight);
  s.outside_center_cost = static_cast<float>(options.outside_center_cost);
  s.log_epsilon = static_cast<float>(1e-8);
  return s;
}

// [B, A]: sum over the classes of BCE(score, 0), by the composed path's own ops (a reduction whose
// order only PyTorch repeats, so the kernel reads it rather than summing itself).
inline torch::Tensor simota_negative_class_sum(const torch::Tensor& pred_scores) {
  const auto zero = torch::zeros({}, pred_scores.options());
  return torch::binary_cross_entropy(pred_scores, zero.expand_as(pred_scores), {}, at::Reduction::None)
      .sum(2)
      .contiguous();
}

}  // namespace libreyolo::sdk::losses

#pragma once
// Gradient housekeeping around the optimizer step, without host synchronisation.

#include <torch/types.h>

#include <vector>

namespace libreyolo::core::optim {

// Clears the gradients of `params`.
// set_to_none (default): drops the gradient tensors. No kernel at all, and the next backward
//   writes fresh gradients instead of adding to zeros; gradient accumulation works unchanged
//   (clear at the start of a window, let the window's backwards add up).
// otherwise: zeroes them in place with one multi-tensor kernel. Needed when gradient storage
//   must stay put: DDP gradient-as-bucket-view, or a captured CUDA graph that writes into it.
void zero_grad(const std::vector<torch::Tensor>& params, bool set_to_none = true);

// The defined gradients of `params`, in order (parameters without one are skipped).
std::vector<torch::Tensor> gradients(const std::vector<torch::Tensor>& params);

// torch.nn.utils.clip_grad_norm_ with the 2-norm: total = ||(||g_1||, ..., ||g_n||)||,
// every gradient is multiplied by min(1, max_norm / (total + 1e-6)). The coefficient stays a
// device tensor, so nothing is read back; a non-finite total is not an error here (the fp16
// grad scaler skips such steps). Returns the total norm (before clipping) as a 0-dim device
// tensor, float32 for float32 gradients; a zero tensor when no parameter has a gradient.
// `max_norm` must be > 0 (LibreYOLO: clip_max_norm = 0 means "do not call this").
torch::Tensor clip_grad_norm(const std::vector<torch::Tensor>& params, double max_norm);

}  // namespace libreyolo::core::optim

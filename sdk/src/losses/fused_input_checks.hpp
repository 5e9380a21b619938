#pragma once
// What the loss kernels' refusals share (task_aligned_metric, task_aligned_selection,
// simota_cost): every input defined and on one CUDA device, the float inputs float32, exact
// shapes. SDK-internal.

#include <torch/types.h>

#include <initializer_list>

namespace libreyolo::sdk::losses {

// The first tensor's device is the one (it is checked for being defined before it is read).
inline bool all_on_one_cuda_device(std::initializer_list<const torch::Tensor*> tensors) {
  const torch::Tensor* first = *tensors.begin();
  for (const auto* t : tensors)
    if (!t->defined() || !t->is_cuda() || t->device() != first->device()) return false;
  return true;
}

inline bool all_float32(std::initializer_list<const torch::Tensor*> tensors) {
  for (const auto* t : tensors)
    if (t->scalar_type() != torch::kFloat32) return false;
  return true;
}

inline bool same_shape(const torch::Tensor& t, std::initializer_list<int64_t> sizes) {
  return t.sizes() == torch::IntArrayRef(sizes);
}

}  // namespace libreyolo::sdk::losses

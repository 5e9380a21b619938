#include "libreyolo/sdk/dense_slices.hpp"

#include <torch/torch.h>

#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::sdk {

torch::Tensor dense_slice(const torch::Tensor& x) {
  if (!fused_kernel_allowed("dense_slices")) return x;
  // A slice's suggested format is the one its strides keep (channels-last for a channel chunk of
  // a channels-last tensor), so the copy stays in the layout the network runs in; a tensor
  // already dense in it comes back as itself.
  return x.contiguous(x.suggest_memory_format());
}

}  // namespace libreyolo::sdk

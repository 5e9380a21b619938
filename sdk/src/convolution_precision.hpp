#pragma once
// Whether a convolution would run in float16, for the SDK's convolution kernels' dispatchers
// (small_convolutions.cpp, image_convolutions.cpp): their kernels compute in float16 only.

#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include "libreyolo/sdk/compat.hpp"

namespace libreyolo::sdk::detail {

// Under CUDA autocast, if autocast's type is float16 (whatever x's type); outside it, if x and
// the weight are float16.
inline bool runs_in_half(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  if (compat::cuda_autocast_enabled()) return compat::cuda_autocast_dtype() == torch::kHalf;
  return x.scalar_type() == torch::kHalf && conv.weight.scalar_type() == torch::kHalf;
}

}  // namespace libreyolo::sdk::detail

#pragma once
// The 2x2, stride-1, unpadded average pool (F.avg_pool2d(x, 2, 1)): YOLOv9's smoothing before its
// strided convolutions (AConv, ADown). Composed (torch::avg_pool2d) unless the fused_kernels
// policy allows the SDK's CUDA kernel, which computes the same sums in the same order: its
// output is PyTorch's to the bit, its input gradient within one rounding of PyTorch's channels-last
// kernel (docs/fused-kernels.md, "2x2 average pool"). PyTorch's channels-last kernels for this
// pool took 1.1 to 5.8 times as long per forward + backward at YOLOv9-t's sizes on an H200.

#include <torch/types.h>

#include <string>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

LIBREYOLO_SDK_API torch::Tensor avg_pool_2x2(const torch::Tensor& x);

// Why the fused kernel would not take x, whatever the policy ("" when it would).
LIBREYOLO_SDK_API std::string avg_pool_2x2_refusal(const torch::Tensor& x);

}  // namespace libreyolo::sdk

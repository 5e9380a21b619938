#pragma once
// The stride-1 max pool padded to keep the size (F.max_pool2d(x, k, 1, k // 2), odd k): the SPP
// blocks' pools (YOLOX and RTMDet: k = 5, 9, 13; YOLOv9's SPPELAN: k = 5, three in a row).
// Composed (torch::max_pool2d) unless the fused_kernels policy allows the SDK's CUDA kernel
// (docs/fused-kernels.md, "Same-size max pool"), which scans each window as PyTorch does, so its
// outputs and the routing of its gradient are PyTorch's.

#include <torch/types.h>

#include <cstdint>
#include <string>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

LIBREYOLO_SDK_API torch::Tensor max_pool_same(const torch::Tensor& x, int64_t kernel);

// Why the fused kernel would not take (x, kernel), whatever the policy ("" when it would).
LIBREYOLO_SDK_API std::string max_pool_same_refusal(const torch::Tensor& x, int64_t kernel);

}  // namespace libreyolo::sdk

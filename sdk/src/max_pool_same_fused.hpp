#pragma once
// The SDK-internal seam between max_pool_same (max_pool_same.cpp) and its CUDA kernels:
// max_pool_same_fused.cpp in a CUDA build, max_pool_same_fused_unavailable.cpp otherwise.

#include <torch/types.h>

#include <cstdint>
#include <string>

namespace libreyolo::sdk {

// Why this build cannot run the kernel at all ("" when it can).
std::string fused_max_pool_same_unavailable();

// max_pool2d(x, kernel, 1, kernel / 2), differentiable in x. x: CUDA, 4-D, float16 or float32,
// channels-last; kernel odd, 1 to 15 (the caller checks: max_pool_same_refusal).
torch::Tensor fused_max_pool_same(const torch::Tensor& x, int64_t kernel);

}  // namespace libreyolo::sdk

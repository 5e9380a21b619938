#pragma once
// The SDK-internal seam between avg_pool_2x2 (avg_pool_2x2.cpp) and its CUDA kernels:
// avg_pool_2x2_fused.cpp in a CUDA build, avg_pool_2x2_fused_unavailable.cpp otherwise.

#include <torch/types.h>

#include <string>

namespace libreyolo::sdk {

// Why this build cannot run the kernel at all ("" when it can).
std::string fused_avg_pool_2x2_unavailable();

// avg_pool2d(x, 2, 1), differentiable in x. x: CUDA, 4-D, float16 or float32, contiguous NCHW or
// channels-last, H and W at least 2 (the caller checks: avg_pool_2x2_refusal).
torch::Tensor fused_avg_pool_2x2(const torch::Tensor& x);

}  // namespace libreyolo::sdk

#pragma once
// The SDK-internal seam between conv3x3_small (small_convolutions.cpp) and its CUDA kernels:
// small_conv3x3_fused.cpp in a CUDA build, small_conv3x3_fused_unavailable.cpp otherwise.

#include <torch/types.h>

#include <string>

namespace libreyolo::sdk {

// Why this build cannot run the kernels at all ("" when it can).
std::string fused_small_conv3x3_unavailable();
// Whether the kernels take an activation of this shape (channels 16, 24 or 32; shared memory).
bool fused_small_conv3x3_fits(int64_t batch, int64_t channels, int64_t height, int64_t width);

// conv2d(x, weight, padding 1), differentiable in both. x: CUDA float16 channels-last [N, C, H,
// W]; weight: float16 [C, C, 3, 3] channels-last (the caller checks: conv3x3_small_refusal).
torch::Tensor fused_small_conv3x3(const torch::Tensor& x, const torch::Tensor& weight);

}  // namespace libreyolo::sdk

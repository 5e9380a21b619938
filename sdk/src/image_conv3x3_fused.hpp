#pragma once
// The SDK-internal seam between conv3x3_image (image_convolutions.cpp) and its CUDA kernels:
// image_conv3x3_fused.cpp in a CUDA build, image_conv3x3_fused_unavailable.cpp otherwise.

#include <torch/types.h>

#include <string>

namespace libreyolo::sdk {

// Why this build cannot run the kernels at all ("" when it can).
std::string fused_image_conv3x3_unavailable();
// Whether the kernels take an image of this size into `out_channels` at `stride` (`focus`: after
// a Focus, stride 1).
bool fused_image_conv3x3_fits(int64_t batch, int64_t height, int64_t width, int64_t out_channels, int64_t stride,
                              bool focus);

// conv2d(x, weight, stride, padding 1), or with `focus` conv2d(focus(x), weight, 1, padding 1),
// differentiable in the weight (the image needs no gradient). x: CUDA float32 or float16
// [N, 3, H, W] in any layout; weight: float16 [K, 3, 3, 3] (after a Focus [K, 12, 3, 3])
// channels-last (the caller checks: conv3x3_image_refusal, focus_conv3x3_refusal).
torch::Tensor fused_image_conv3x3(const torch::Tensor& x, const torch::Tensor& weight, int64_t stride, bool focus);

}  // namespace libreyolo::sdk

#pragma once
// 3x3 convolutions of few channels on the SDK's own kernels (fused_kernels=small_convolutions;
// docs/fused-kernels.md, "Small convolutions").
//
// cuDNN runs YOLOv9-t's 3x3 convolutions of 16, 24 and 32 channels at 16-56 times their memory
// floor: three or four kernels a convolution (forward, input gradient, a split-K weight gradient
// and its reduction) of 5-20 us each, most of it fixed cost (about 3.6 ms of a 20 ms step on an
// H100; docs/benchmarks.md, "Thirty-second session"). The SDK's kernels do the forward and the
// input gradient as one tensor-core implicit GEMM each and the weight gradient in one pass, for
// exactly these shapes: 3x3, stride 1, padding 1, no dilation, no groups, no bias, as many output
// as input channels (16, 24 or 32), channels-last float16 on CUDA (float32 inputs under CUDA
// autocast are cast as autocast would). Everything else is the convolution's own forward. Where
// the host runs weight gradients on a second stream, theirs go there too (weight_gradient_route.hpp).
// The weight gradient's float32 sums are added per block with atomics, so it is not the same
// bits from run to run (cuDNN's deterministic algorithms are).

#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include <cstdint>
#include <string>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

// conv->forward(x), or the SDK's kernels where conv3x3_small_allowed(its channels) and
// conv3x3_small_refusal(conv, x) is empty.
LIBREYOLO_SDK_API torch::Tensor conv3x3_small(torch::nn::Conv2d& conv, const torch::Tensor& x);

// Whether the policy lets the kernels take a convolution of `channels` in and out:
// small_convolutions takes 16 (where they were measured ahead of PyTorch's cuDNN),
// small_convolutions_wide 16, 24 and 32 (behind at 24 and 32: for measuring).
LIBREYOLO_SDK_API bool conv3x3_small_allowed(int64_t channels);

// Why the kernels would not take (conv, x), whatever the policy ("" when they would).
LIBREYOLO_SDK_API std::string conv3x3_small_refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x);

}  // namespace libreyolo::sdk

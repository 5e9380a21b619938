#pragma once
// A network's first convolution, 3x3 over the image's three channels, on the SDK's kernels
// (fused_kernels=image_convolutions; docs/fused-kernels.md, "Image convolutions").
//
// cuDNN cannot run its fast kernels on rows of three float16 channels (it pads the image into
// eight channels or runs kernels for 2-byte-aligned rows), and under autocast the float32 image is
// first cast to float16: YOLOv9-t's stem took about 0.31 ms of kernel time a step on an H200
// (the captured step's census) for a convolution whose memory floor is about 0.05 ms
// (docs/benchmarks.md, "Thirty-seventh session"). The SDK's kernels gather
// each output pixel's 27 taps straight from the image through its strides (any layout, float32 or
// float16, each value rounded to float16 as autocast's cast would) and run the convolution and its
// weight gradient as small GEMMs on tensor cores, for exactly: 3 input channels, 3x3, stride 1 or
// 2, padding 1, no dilation, groups or bias, 16, 32 or 64 output channels, under CUDA float16
// autocast (or a float16 weight), an input that needs no gradient (an image). Everything else is
// the convolution's own forward. The weight gradient's float32 sums are added per block with
// atomics (not the same bits from run to run); where the host runs weight gradients on a second
// stream, this one goes there too (weight_gradient_route.hpp).

#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include <string>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

// conv->forward(x), or the SDK's kernels where the policy allows image_convolutions and
// conv3x3_image_refusal(conv, x) is empty.
LIBREYOLO_SDK_API torch::Tensor conv3x3_image(torch::nn::Conv2d& conv, const torch::Tensor& x);

// Whether conv3x3_image would run the SDK's kernels for (conv, x) under the policy now.
LIBREYOLO_SDK_API bool conv3x3_image_chosen(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x);

// Why the kernels would not take (conv, x), whatever the policy ("" when they would).
LIBREYOLO_SDK_API std::string conv3x3_image_refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x);

// A Focus (YOLOX's, YOLOv5's) and the convolution after it, in one: the image's four 2x2 phases,
// row and column offsets (0, 0), (1, 0), (0, 1), (1, 1) in that order, 3 channels each,
// concatenated at half the image's size, then a 3x3 convolution of those 12 channels (stride 1,
// padding 1, no dilation, groups or bias; 16 or 32 output channels). The kernels read the image
// directly, so the 12-channel tensor is never made. focus_conv3x3 requires focus_conv3x3_chosen
// (the policy allows image_convolutions and focus_conv3x3_refusal is empty; the image's sides
// even); otherwise the family composes its Focus as before.
LIBREYOLO_SDK_API bool focus_conv3x3_chosen(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x);
LIBREYOLO_SDK_API std::string focus_conv3x3_refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x);
LIBREYOLO_SDK_API torch::Tensor focus_conv3x3(torch::nn::Conv2d& conv, const torch::Tensor& x);

}  // namespace libreyolo::sdk

#pragma once
// One entry for a family's convolution blocks: the convolution's own forward, or whichever of the
// SDK's convolution kernels the fused_kernels policy picks for it (image_convolutions.hpp for a
// network's first convolution over the image, small_convolutions.hpp for 3x3 ones of few
// channels). A block that calls convolve gets every such kernel, present and future, without
// naming them.

#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

LIBREYOLO_SDK_API torch::Tensor convolve(torch::nn::Conv2d& conv, const torch::Tensor& x);

}  // namespace libreyolo::sdk

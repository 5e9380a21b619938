#pragma once
// Convolutions of one input that meet only as a sum, each after its own BatchNorm, trained as one
// convolution and one BatchNorm (fused_kernels=stacked_convolutions; docs/fused-kernels.md,
// "Stacked convolutions").
//
// YOLOv9's RepConvN trains silu(bn1(conv3x3(x)) + bn2(conv1x1(x))): two convolutions and two
// BatchNorms, forward and backward, each a small latency-bound launch (YOLOv9-t has 42 of these
// blocks). The 1x1 weight zero-padded to 3x3 makes the same products, so both convolutions are
// one over the weights stacked along the output channels; BatchNorm works per channel, so both
// BatchNorms are one over the stacked channels. Equal in exact arithmetic; in floating point the
// convolution sums in another order, so within rounding, not bit for bit.
//
// The layers keep their own parameters and buffers (checkpoints, the optimizer and the EMA see
// nothing new). The BatchNorms' running statistics are made to share one storage the first time
// (set_ on the buffers themselves, so the modules still hold them), so the stacked BatchNorm
// updates them in place; the affine parameters are concatenated per forward (one launch).

#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include <string>
#include <vector>

#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

// One branch: a convolution without bias and the BatchNorm after it.
struct ConvolutionBranch {
  torch::nn::Conv2dImpl& conv;
  BatchNorm2dImpl& bn;
};

// Why `branches` cannot run stacked on `x` ("" when they can), whatever the policy: both in
// training mode, one input channel count, one stride, no groups, dilation or bias, square odd
// kernels padded to keep the size ("same"), BatchNorms with running statistics, a momentum, the
// same eps and momentum, affine, not synchronised across GPUs.
LIBREYOLO_SDK_API std::string stacked_convolutions_refusal(const std::vector<ConvolutionBranch>& branches,
                                                           const torch::Tensor& x);

// Each branch's bn(conv(x)), concatenated along the channels ([N, sum of the out channels, H,
// W]) in the branches' order, computed as one convolution and one BatchNorm. The running
// statistics and step counts move as the branches' own forwards would move them. Throws
// std::invalid_argument with the refusal when the branches cannot run stacked.
LIBREYOLO_SDK_API torch::Tensor stacked_convolutions(const std::vector<ConvolutionBranch>& branches,
                                                     const torch::Tensor& x);

// Whether the fused_kernels policy asks for stacked_convolutions and the branches can run
// stacked on `x`; the first decision in training is logged once.
LIBREYOLO_SDK_API bool stacked_convolutions_chosen(const std::vector<ConvolutionBranch>& branches,
                                                   const torch::Tensor& x);

}  // namespace libreyolo::sdk

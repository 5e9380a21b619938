#pragma once
// silu(bn(x)): the BatchNorm + SiLU that ends the YOLO families' convolution blocks, composed or
// fused. With the fused_kernels policy off (the default) it is exactly torch::silu(bn->forward(x));
// with `auto` a training forward on CUDA runs the SDK's fused kernel, which computes the batch's
// statistics, moves the running ones and applies the activation in fewer passes over memory
// (docs/fused-kernels.md, "BatchNorm + SiLU"). Anything the kernel does not take runs composed.

#include <torch/types.h>

#include <string>

#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

LIBREYOLO_SDK_API torch::Tensor batch_norm_silu(BatchNorm2d& bn, const torch::Tensor& x);

// Why the fused kernel would not take (bn, x), whatever the policy ("" when it would).
LIBREYOLO_SDK_API std::string batch_norm_silu_refusal(const BatchNorm2dImpl& bn, const torch::Tensor& x);

}  // namespace libreyolo::sdk

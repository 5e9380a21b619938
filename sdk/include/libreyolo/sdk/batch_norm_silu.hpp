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

// Which kernels batch_norm_silu(bn, x) runs under the current policy: "composed" (cuDNN's or
// PyTorch's BatchNorm, then silu), "three_launch" (the fused kernels, `batch_norm_silu`, or with
// `batch_norm_silu_large` for activations of at least 2^20 positions N*H*W only) or
// "cluster" (the one-launch cluster kernels, `batch_norm_silu_cluster`: small channels-last
// activations on compute capability 9.0).
LIBREYOLO_SDK_API std::string batch_norm_silu_kernel(const BatchNorm2dImpl& bn, const torch::Tensor& x);

// Whether this build has the cluster kernels and the current CUDA device runs thread-block
// clusters (compute capability 9.0 or later).
LIBREYOLO_SDK_API bool batch_norm_silu_cluster_runnable();

}  // namespace libreyolo::sdk

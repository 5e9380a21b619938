#pragma once
// The SDK-internal seam between batch_norm_silu (batch_norm_silu.cpp) and cuDNN's BatchNorm with
// SiLU in its forward kernel: cudnn_batch_norm_silu.cpp in a CUDA build,
// cudnn_batch_norm_silu_unavailable.cpp otherwise. Not installed: families call batch_norm_silu.

#include <torch/types.h>

#include <string>

namespace libreyolo::sdk {

// Why this build or process cannot take the path at all ("" when it can).
std::string cudnn_batch_norm_silu_unavailable();

// silu(batch_norm(x)) with the batch's statistics, differentiable in x, weight and bias. Forward:
// one cuDNN BatchNorm kernel with SWISH (beta 1) applied before it writes y; running_mean and
// running_var move as PyTorch's cuDNN BatchNorm moves them (not num_batches_tracked: the caller's).
// Backward: silu'(z) times the incoming gradient, z recomputed from x (no pre-activation tensor
// is kept), then cuDNN's BatchNorm backward. x: channels-last float16 CUDA [N, C, H, W]; weight,
// bias and the running statistics float32 [C] on x's device (batch_norm_silu checks all that).
torch::Tensor cudnn_batch_norm_silu(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                    const torch::Tensor& running_mean, const torch::Tensor& running_var,
                                    double momentum, double eps);

}  // namespace libreyolo::sdk

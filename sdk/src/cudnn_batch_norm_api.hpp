#pragma once
// cuDNN's training BatchNorm called from the SDK: with an activation in its forward kernel
// (cudnnBatchNormalizationForwardTrainingEx, CUDNN_BATCHNORM_OPS_BN_ACTIVATION), which PyTorch
// never asks for, and the BatchNorm alone both ways exactly as PyTorch calls it but with a
// workspace the caller owns. SDK-internal, CUDA builds only (cudnn_batch_norm_silu.cpp,
// cudnn_persistent_batch_norm.cpp).
//
// The entry points are looked up in the process at run time (dlsym), not linked: LibTorch's CUDA
// library has already loaded its cuDNN, and a second link line could name another copy (the GPU
// machine has the system's cuDNN beside the wheel's). Without them the fused path is refused.

#include <torch/types.h>

#include <cstddef>
#include <string>

namespace libreyolo::sdk::cudnn_bn {

// Why cuDNN's BatchNorm cannot be called from here ("" when it can): the entry points not found.
std::string unavailable();

// What one forward returns besides y: the batch's mean and 1 / sqrt(var + eps) for the backward,
// and the reserve space cuDNN's backward reads.
struct ForwardSaved {
  torch::Tensor save_mean, save_invstd, reserve;
};

// y = silu(batch_norm(x)) with the batch's statistics, in one cuDNN kernel (SWISH, beta 1),
// moving running_mean and running_var as PyTorch's cuDNN BatchNorm does (momentum as the
// exponential average factor, the unbiased variance). x: channels-last float16 CUDA [N, C, H, W];
// the rest float32 [C] on x's device. The reserve space is sized for the BatchNorm-only backward
// as well. Throws c10::Error with cuDNN's status text when a call fails.
torch::Tensor forward_silu(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                           const torch::Tensor& running_mean, const torch::Tensor& running_var, double momentum,
                           double eps, ForwardSaved& saved);

// The workspaces the BatchNorm-only calls on x need (forward, backward), in bytes.
struct WorkspaceBytes {
  std::size_t forward = 0, backward = 0;
};
WorkspaceBytes workspace_bytes(const torch::Tensor& x);

// batch_norm(x) with the batch's statistics as PyTorch's cuDNN BatchNorm computes it in training
// (the persistent mode, OPS_BN, the same arguments) but in `workspace` (at least workspace_size
// bytes, which is what cuDNN is told; undefined when that is 0), moving running_mean and running_var the same way. x: channels-last float16 CUDA.
torch::Tensor forward_persistent(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                 const torch::Tensor& running_mean, const torch::Tensor& running_var, double momentum,
                                 double eps, const torch::Tensor& workspace, std::size_t workspace_size,
                                 ForwardSaved& saved);

// Its backward, as PyTorch's cudnn_batch_norm_backward: grad_y dense in x's layout and type.
struct Gradients {
  torch::Tensor x, weight, bias;
};
Gradients backward_persistent(const torch::Tensor& x, const torch::Tensor& grad_y, const torch::Tensor& weight,
                              const ForwardSaved& saved, double eps, const torch::Tensor& workspace,
                              std::size_t workspace_size);

}  // namespace libreyolo::sdk::cudnn_bn

#pragma once
// The SDK-internal seam between BatchNorm2d's training forward (batch_norm.cpp) and cuDNN's
// persistent BatchNorm called with a workspace the layer owns (fused_kernels=batch_norm_memsets,
// batch_norm_workspaces.hpp says why): cudnn_persistent_batch_norm.cpp in a CUDA build,
// cudnn_persistent_batch_norm_unavailable.cpp otherwise.

#include <torch/types.h>

#include <string>

namespace libreyolo::sdk {

// Why this build or process cannot take the path at all ("" when it can).
std::string own_workspace_batch_norm_unavailable();

// Whether the call is one PyTorch would give cuDNN's persistent kernels: channels-last float16 4-D
// CUDA x, float32 weight, bias and running statistics.
bool own_workspace_batch_norm_fits(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                   const torch::Tensor& running_mean, const torch::Tensor& running_var);

// Whether `device`'s current CUDA stream is being recorded into a graph (never in a build without
// the SDK's CUDA kernels): under batch_norm_memsets_recording_only the own workspaces are taken
// only then, since only a recorded graph's memsets can be moved.
bool stream_is_recording(const torch::Device& device);

// batch_norm(x) in training, differentiable in x, weight and bias: the same cuDNN calls and bits
// as PyTorch's cuDNN BatchNorm, with `owner`'s own forward and backward workspaces
// (batch_norm_workspace.hpp). running_mean and running_var move as there (not num_batches_tracked).
torch::Tensor own_workspace_batch_norm(const void* owner, const torch::Tensor& x, const torch::Tensor& weight,
                                       const torch::Tensor& bias, const torch::Tensor& running_mean,
                                       const torch::Tensor& running_var, double momentum, double eps);

}  // namespace libreyolo::sdk

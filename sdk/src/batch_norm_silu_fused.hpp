#pragma once
// The SDK-internal seam between batch_norm_silu (batch_norm_silu.cpp) and the fused CUDA kernels:
// batch_norm_silu_fused.cpp in a CUDA build, batch_norm_silu_fused_unavailable.cpp otherwise.
// Not installed: families call batch_norm_silu.

#include <torch/types.h>

#include <string>

namespace libreyolo::sdk {

// Why this build cannot run the fused kernel at all ("" when it can).
std::string fused_batch_norm_silu_unavailable();

// Whether the one-launch cluster kernel takes x (channels-last, 16-byte aligned, C a multiple of
// 16 bytes' worth of elements, at most 131,072 positions N*H*W, a device of compute capability
// 9.0 or later); false in a build without the kernels.
bool fused_batch_norm_silu_cluster_fits(const torch::Tensor& x);
// Whether the current CUDA device runs thread-block clusters (false without the kernels or CUDA).
bool fused_batch_norm_silu_clusters_on_device();

// silu(batch_norm(x)) with the batch's statistics, differentiable in x, weight and bias; moves
// running_mean and running_var as BatchNorm's training forward does (not num_batches_tracked:
// the caller does, as it knows the module). x: CUDA, 4-D, float16 or float32, contiguous NCHW or
// channels-last; weight, bias and the running statistics: float32 [C] on x's device. The caller
// checks all that first (batch_norm_silu_refusal). `cluster`: the one-launch kernels where
// fused_batch_norm_silu_cluster_fits(x) (each direction falls back to the three-launch ones
// where its tensors do not fit, e.g. a misaligned incoming gradient).
torch::Tensor fused_batch_norm_silu(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                    const torch::Tensor& running_mean, const torch::Tensor& running_var,
                                    double momentum, double eps, bool cluster = false);

}  // namespace libreyolo::sdk

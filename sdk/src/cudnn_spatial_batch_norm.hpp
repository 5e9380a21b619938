#pragma once
// The SDK-internal seam between BatchNorm2d's training forward (batch_norm.cpp) and cuDNN's
// BatchNorm in its plain spatial mode (fused_kernels=cudnn_spatial_batch_norm):
// cudnn_spatial_batch_norm.cpp in a CUDA build, cudnn_spatial_batch_norm_unavailable.cpp otherwise.
//
// Why: PyTorch's cuDNN BatchNorm asks for the persistent kernels, and cuDNN puts a memset before
// each of their calls, forward and backward: about 440 memset nodes in YOLOv9-t's step graph,
// most of them before the small maps' calls of 8-9 us (docs/fused-kernels.md, "cuDNN's spatial
// BatchNorm"). The plain mode is another kernel; whether it is faster where the maps are small is
// what tests/tools/cudnn_bn_mode_probe.cu and `bench fused` measure.

#include <torch/types.h>

#include <string>

namespace libreyolo::sdk {

// Why this build or process cannot take the path at all ("" when it can).
std::string cudnn_spatial_batch_norm_unavailable();

// Whether x suits it: channels-last float16 4-D CUDA, 16-byte aligned, below 2^18 positions
// (N*H*W: the small maps, where a call's memset costs most beside its kernel).
bool cudnn_spatial_batch_norm_fits(const torch::Tensor& x);

// batch_norm(x) with the batch's statistics, differentiable in x, weight and bias, in cuDNN's
// spatial mode both ways; running_mean and running_var move as PyTorch's cuDNN BatchNorm moves
// them (not num_batches_tracked: the caller's). Weight, bias and the running statistics float32
// [C] on x's device.
torch::Tensor cudnn_spatial_batch_norm(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                       const torch::Tensor& running_mean, const torch::Tensor& running_var,
                                       double momentum, double eps);

}  // namespace libreyolo::sdk

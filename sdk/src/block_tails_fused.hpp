#pragma once
// The SDK-internal seam between block_tails.cpp and the tails' CUDA kernels:
// block_tails_fused.cpp in a CUDA build, block_tails_fused_unavailable.cpp otherwise.

#include <torch/types.h>

#include <string>

namespace libreyolo::sdk {

// Why this build cannot run the kernels at all ("" when it can).
std::string fused_block_tails_unavailable();

// silu(a + b), differentiable in both; silu(x) + residual, differentiable in both. The inputs:
// one CUDA device, one shape, one type (float16 or float32), dense in one layout (the caller
// checks: block_tail_refusal). The backwards are PyTorch's own silu_backward.
torch::Tensor fused_add_silu(const torch::Tensor& a, const torch::Tensor& b);
torch::Tensor fused_silu_add(const torch::Tensor& x, const torch::Tensor& residual);

}  // namespace libreyolo::sdk

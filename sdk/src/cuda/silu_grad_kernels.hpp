#pragma once
// SiLU's backward behind a BatchNorm whose output it never kept: g = grad_y * silu'(z), with
// z = weight * (x - mean) * invstd + bias recomputed from the BatchNorm's input and saved
// statistics. cuDNN's BatchNorm can apply SiLU (SWISH) in its forward kernel but has no backward
// for it (cudnn_batch_norm_silu.cpp): this is the pass before cuDNN's BatchNorm backward, the
// same bytes as PyTorch's silu_backward (x and grad_y read, g written) without the pre-activation
// tensor the composed path keeps. Plain interface (raw pointers and a stream, no torch headers).

#include <cstdint>

namespace libreyolo::sdk::fused {

struct SiluGradShape {
  int64_t elements = 0, channels = 0;  // N*C*H*W; C
  bool half = true;                    // float16 tensors, else float32
  bool aligned16 = false;              // x, grad_y, g 16-byte aligned and C a multiple of a vector
};

struct SiluGradArgs {
  const void* x = nullptr;       // [N, H, W, C] channels-last in memory
  const void* grad_y = nullptr;  // the same layout and type
  const float* weight = nullptr; // [C] float32: the BatchNorm's affine weight and bias,
  const float* bias = nullptr;
  const float* mean = nullptr;   // its batch mean and 1 / sqrt(var + eps)
  const float* invstd = nullptr;
  void* g = nullptr;             // out: grad_y * silu'(z), x's layout and type
};

// 0 on success, else the CUDA error code of the launch (silu_grad_error_text names it). One launch.
int silu_grad_through_batch_norm(const SiluGradShape& shape, const SiluGradArgs& args, void* stream);
const char* silu_grad_error_text(int code);

}  // namespace libreyolo::sdk::fused

#pragma once
// The fused BatchNorm (training statistics) + SiLU kernels' plain interface: raw pointers and a
// stream, no torch and no CUDA headers, so that nvcc compiles the kernels without LibTorch's
// headers and the C++ side (batch_norm_silu_fused.cpp) includes this without nvcc.
//
// x, y, grad_y and grad_x are [N, C, H, W] in one of two dense layouts: contiguous NCHW, or
// channels-last (NHWC in memory, what the trainer uses on CUDA), all four in the same one; float16
// (passed as void*, __half on the CUDA side) or float32. Every per-channel array (weight, bias,
// running statistics, saved mean and inverse deviation, gradients of weight and bias) is float32
// [C]. Statistics and arithmetic are float32 whatever x's type, as PyTorch's CUDA BatchNorm does.

#include <cstdint>

namespace libreyolo::sdk::fused {

struct BnSiluShape {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  bool channels_last = false;  // NHWC in memory; else contiguous NCHW
  bool half = false;           // x, y, grad_y, grad_x are float16; else float32
  bool aligned16 = false;      // every element pointer of the call is 16-byte aligned (wide accesses)
};

// The float32 workspace (elements) each direction needs for its per-block partial sums. The
// split into blocks depends on the shape and the device alone, so results are the same run
// after run.
int64_t bn_silu_forward_workspace(const BnSiluShape& shape);
int64_t bn_silu_backward_workspace(const BnSiluShape& shape);

struct BnSiluForwardArgs {
  const void* x = nullptr;
  const float* weight = nullptr;
  const float* bias = nullptr;
  float* running_mean = nullptr;  // updated in place, as BatchNorm's training forward does
  float* running_var = nullptr;   // (with the unbiased variance)
  float momentum = 0.f, eps = 0.f;
  void* y = nullptr;              // silu(batch_norm(x)), x's layout and type
  float* save_mean = nullptr;     // [C], for the backward
  float* save_invstd = nullptr;   // [C], 1 / sqrt(biased variance + eps)
  float* workspace = nullptr;     // bn_silu_forward_workspace floats
};

struct BnSiluBackwardArgs {
  const void* x = nullptr;
  const void* grad_y = nullptr;
  const float* weight = nullptr;
  const float* bias = nullptr;
  const float* save_mean = nullptr;
  const float* save_invstd = nullptr;
  void* grad_x = nullptr;
  float* grad_weight = nullptr;  // written whole
  float* grad_bias = nullptr;
  float* workspace = nullptr;  // bn_silu_backward_workspace floats
};

// Both return 0 on success, else the CUDA error code of the first launch that failed
// (bn_silu_error_text names it). Each is three launches on `stream`: per-block partial sums,
// their per-channel total (fixed order, no atomics: bitwise the same every run), and the
// elementwise pass.
int bn_silu_forward(const BnSiluShape& shape, const BnSiluForwardArgs& args, void* stream);
int bn_silu_backward(const BnSiluShape& shape, const BnSiluBackwardArgs& args, void* stream);
const char* bn_silu_error_text(int code);

// The one-launch variant (batch_norm_silu_cluster_kernels.cu): one thread-block cluster per tile of
// 16 bytes' worth of channels, its blocks' sums combined through distributed shared memory, no
// workspace (the args' workspace is not read). It takes channels-last, 16-byte aligned tensors with
// C a multiple of 8 (float16) or 4 (float32), up to 131,072 rows (N*H*W), on a device of compute
// capability 9.0 or later: bn_silu_cluster_fits says whether. Same arguments, same results
// within float32 rounding (bitwise the same run after run); returns as the three-launch ones.
bool bn_silu_cluster_fits(const BnSiluShape& shape);
bool bn_silu_clusters_on_device();  // the current device's compute capability is 9.0 or later
int bn_silu_cluster_forward(const BnSiluShape& shape, const BnSiluForwardArgs& args, void* stream);
int bn_silu_cluster_backward(const BnSiluShape& shape, const BnSiluBackwardArgs& args, void* stream);

}  // namespace libreyolo::sdk::fused

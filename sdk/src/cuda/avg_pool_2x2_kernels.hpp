#pragma once
// The 2x2, stride-1, unpadded average pool's kernels (F.avg_pool2d(x, 2, 1), YOLOv9's smoothing
// before a strided convolution): a plain interface of raw pointers and a stream, no torch and no
// CUDA headers, like batch_norm_silu_kernels.hpp.
//
// x and grad_x are [N, C, H, W], y and grad_y [N, C, H - 1, W - 1], all four dense in the same
// layout (contiguous NCHW, or channels-last: NHWC in memory) and type (float16 or float32).
// Sums are float32 in PyTorch's order (the window's rows top to bottom, each left to right), then
// divided by 4, as PyTorch's CUDA kernels do.

#include <cstdint>

namespace libreyolo::sdk::fused {

struct Pool2x2Shape {
  int64_t batch = 0, channels = 0, height = 0, width = 0;  // x's; H and W at least 2
  bool channels_last = false;
  bool half = false;
  bool aligned16 = false;  // every pointer of the call 16-byte aligned (wide accesses)
};

// Both return 0 on success, else the CUDA error code of the launch (bn_silu_error_text-like
// text from avg_pool_2x2_error_text). One launch each on `stream`; no atomics, so the results are
// the same bits every run.
int avg_pool_2x2_forward(const Pool2x2Shape& shape, const void* x, void* y, void* stream);
int avg_pool_2x2_backward(const Pool2x2Shape& shape, const void* grad_y, void* grad_x, void* stream);
const char* avg_pool_2x2_error_text(int code);

}  // namespace libreyolo::sdk::fused

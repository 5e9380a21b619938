#pragma once
// The stride-1, "same"-padded max pool's kernels (F.max_pool2d(x, k, 1, k // 2) for odd k: YOLOX's
// SPP with k = 5, 9, 13, YOLOv9's SPPELAN with k = 5): a plain interface of raw pointers and a
// stream, no torch and no CUDA headers, like avg_pool_2x2_kernels.hpp.
//
// x, y and grad_y, grad_x are [N, C, H, W], dense channels-last (NHWC in memory), float16 or
// float32. The forward also writes, per output element, the position of its maximum inside its
// window as one byte (row * k + column; k * k <= 225), which the backward reads: a quarter of an
// 8-byte index. Windows are scanned row by row as PyTorch does: the first maximum wins, a NaN
// replaces whatever came before it, and a window of -inf keeps its first element, so outputs and
// gradients route as PyTorch's do.

#include <cstdint>

namespace libreyolo::sdk::fused {

struct MaxPoolShape {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int kernel = 0;          // odd, 1 to 15
  bool half = false;
  bool aligned16 = false;  // every pointer of the call 16-byte aligned (wide accesses)
};

// Both return 0 on success, else the CUDA error code of the launch (text from
// max_pool_same_error_text). One launch each on `stream`; no atomics: the same bits every run.
int max_pool_same_forward(const MaxPoolShape& shape, const void* x, void* y, uint8_t* argmax, void* stream);
int max_pool_same_backward(const MaxPoolShape& shape, const void* grad_y, const uint8_t* argmax, void* grad_x,
                           void* stream);
const char* max_pool_same_error_text(int code);

}  // namespace libreyolo::sdk::fused

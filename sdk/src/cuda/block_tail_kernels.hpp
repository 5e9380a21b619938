#pragma once
// The elementwise tails of the YOLO blocks, each one launch instead of two (block_tails.hpp says
// where they sit): a plain interface of raw pointers and a stream, no torch and no CUDA headers,
// like avg_pool_2x2_kernels.hpp.
//
// Every tensor of a call holds `count` elements dense in the same order (the caller passes
// tensors of one shape, type and layout) of one type, float16 or float32. Each result is rounded
// to that type where PyTorch's separate kernels round it, with their float32 formulas, so the
// outputs are PyTorch's to the bit: the sum a + b, silu(x) = x / (1 + exp(-x)).

#include <cstdint>

namespace libreyolo::sdk::fused {

struct TailShape {
  int64_t count = 0;       // elements of each tensor
  bool half = false;       // float16, else float32
  bool aligned16 = false;  // every pointer of the call 16-byte aligned (wide accesses)
};

// silu(a + b): sum = a + b (rounded), y = silu(sum) (rounded). `sum` may be null (inference:
// nothing keeps it for a backward).
int add_silu_forward(const TailShape& shape, const void* a, const void* b, void* sum, void* y, void* stream);
// silu(x) + residual: silu rounded, then the sum rounded.
int silu_add_forward(const TailShape& shape, const void* x, const void* residual, void* y, void* stream);

// Both return 0 on success, else the CUDA error code of the launch (text from
// block_tail_error_text). One launch each on `stream`.
const char* block_tail_error_text(int code);

}  // namespace libreyolo::sdk::fused

#pragma once
// Launch sizes the SDK's elementwise-style kernels share (the pools, BatchNorm + SiLU).
#include <cstdint>

namespace libreyolo::sdk::fused {

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Blocks of `threads` for `items` work items, at most 2^20: a grid-stride loop covers the rest.
inline unsigned grid_stride_blocks(int64_t items, int threads) {
  constexpr int64_t kMaxBlocks = 1 << 20;
  const int64_t blocks = ceil_div(items, threads);
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

}  // namespace libreyolo::sdk::fused

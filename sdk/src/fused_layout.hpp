#pragma once
// What the fused kernels' autograd wrappers share (batch_norm_silu_fused.cpp,
// avg_pool_2x2_fused.cpp, the convolutions'): the memory layout their kernels index a 4-D tensor in, and whether
// the kernels' 16-byte accesses may be used. SDK-internal.

#include <torch/types.h>

#include <cstdint>
#include <initializer_list>

namespace libreyolo::sdk::fused_layout {

// Channels-last (NHWC in memory) or contiguous NCHW. A tensor dense in both orders (H = W = 1,
// or C = 1) has the same memory either way; NCHW is taken then.
inline bool channels_last(const torch::Tensor& x) {
  return !x.is_contiguous() && x.is_contiguous(torch::MemoryFormat::ChannelsLast);
}

inline torch::MemoryFormat format_of(bool channels_last) {
  return channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
}

// Whether every tensor's first element sits on a 16-byte boundary. The caching allocator's
// blocks always do; a view into one may not.
inline bool aligned16(std::initializer_list<const torch::Tensor*> tensors) {
  for (const auto* t : tensors)
    if (reinterpret_cast<std::uintptr_t>(t->data_ptr()) % 16 != 0) return false;
  return true;
}

// t itself where its data starts on a 16-byte boundary, else a channels-last copy that does: for
// kernels that load and store 16 bytes at a time (small_conv3x3_fused.cpp, image_conv3x3_fused.cpp).
inline torch::Tensor aligned16_channels_last(const torch::Tensor& t) {
  return aligned16({&t}) ? t : t.clone(torch::MemoryFormat::ChannelsLast);
}

}  // namespace libreyolo::sdk::fused_layout

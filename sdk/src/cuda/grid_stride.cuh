#pragma once
// The grid-stride loop the SDK's one-thread-per-item kernels share: item i for every thread of the
// grid, then i + the grid's size, until `items` (launch_size.cuh's grid_stride_blocks sizes the grid).
#include <cstdint>

namespace libreyolo::sdk::fused {

template <class Body>
__device__ inline void for_each_item(int64_t items, Body body) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < items;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    body(i);
}

}  // namespace libreyolo::sdk::fused

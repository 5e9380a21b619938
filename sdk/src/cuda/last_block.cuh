#pragma once
// Which block of a grid arrives last, for kernels whose blocks each add into global sums and whose
// last block then finishes them in the same launch (CUDA's threadFenceReduction pattern; the
// small and image convolutions' weight gradients). No torch headers.

namespace libreyolo::sdk::fused {

// Called by every thread of every block once its additions are issued: true in every thread of
// the block that arrives last (counted in `arrivals`, zeroed before the launch), which then sees
// every block's additions (the fences on both sides). A __syncthreads inside: call it uniformly.
__device__ inline bool arrived_last(unsigned* arrivals) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(arrivals, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return false;
  __threadfence();
  return true;
}

}  // namespace libreyolo::sdk::fused

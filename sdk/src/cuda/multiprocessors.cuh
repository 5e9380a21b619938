#pragma once
// The current device's multiprocessor count, which the SDK's launchers size their grids by (a
// grid-stride kernel's blocks per multiprocessor). Asked once per device.
#include <cuda_runtime.h>

#include <atomic>

namespace libreyolo::sdk::fused {

// 132 (an H100 SXM's) where the runtime cannot say.
inline int multiprocessors() {
  static std::atomic<int> known[64] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) return 132;
  int count = known[device].load();
  if (count == 0) {
    if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || count <= 0) count = 132;
    known[device].store(count);
  }
  return count;
}

}  // namespace libreyolo::sdk::fused

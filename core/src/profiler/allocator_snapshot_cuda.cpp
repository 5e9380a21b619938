// CUDA builds only (see core/CMakeLists.txt). The same calls as device/cuda_info_cuda.cpp.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include "libreyolo/core/profiler/allocator_snapshot.hpp"

namespace libreyolo::core::profiler {
namespace {

// Index of the all-pools aggregate in the allocator's stat arrays (StatType::AGGREGATE is 0 in
// every LibTorch; its namespace moved across versions).
constexpr std::size_t kAggregate = 0;

}  // namespace

AllocatorSnapshot cuda_allocator_snapshot(int device_index) {
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device_index);
  AllocatorSnapshot snapshot;
  snapshot.available = true;
  snapshot.alloc_retries = static_cast<std::int64_t>(stats.num_alloc_retries);
  snapshot.reserved_bytes = static_cast<std::int64_t>(stats.reserved_bytes[kAggregate].current);
  snapshot.device_total_bytes = static_cast<std::int64_t>(at::cuda::getDeviceProperties(device_index)->totalGlobalMem);
  return snapshot;
}

std::string cuda_device_name(int device_index) { return at::cuda::getDeviceProperties(device_index)->name; }

}  // namespace libreyolo::core::profiler

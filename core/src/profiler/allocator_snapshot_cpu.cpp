// The CPU-only build's answers; the CUDA build uses allocator_snapshot_cuda.cpp instead.
#include "libreyolo/core/profiler/allocator_snapshot.hpp"

namespace libreyolo::core::profiler {

AllocatorSnapshot cuda_allocator_snapshot(int) { return {}; }
std::string cuda_device_name(int) { return {}; }

}  // namespace libreyolo::core::profiler

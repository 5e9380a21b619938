#pragma once
// Reads the CUDA caching allocator's statistics. The CUDA build compiles
// allocator_snapshot_cuda.cpp; a CPU-only build answers from allocator_snapshot_cpu.cpp
// (nothing available).

#include <string>

#include "libreyolo/core/profiler/device_probe.hpp"

namespace libreyolo::core::profiler {

AllocatorSnapshot cuda_allocator_snapshot(int device_index);

// The device's name ("NVIDIA H200"); empty without CUDA.
std::string cuda_device_name(int device_index);

}  // namespace libreyolo::core::profiler

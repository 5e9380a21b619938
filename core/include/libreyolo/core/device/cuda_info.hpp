#pragma once
// Questions about the CUDA device that need CUDA headers to answer. The CUDA build compiles
// cuda_info_cuda.cpp; a CPU-only build answers from cuda_info.cpp ("no").

#include <torch/types.h>

#include <cstdint>

namespace libreyolo::core::device {

// Compute capability 8.0 or newer: native bfloat16.
bool cuda_supports_bfloat16(const torch::Device& device);

// Memory the caching allocator holds on the device, in GB (-1 for a CPU device): what the
// progress line shows, like LibreYOLO's "GPU_mem".
double reserved_memory_gb(const torch::Device& device);

// The allocator's peak allocation since the last reset_peak_memory(), in GB (-1 on CPU).
double peak_memory_gb(const torch::Device& device);
void reset_peak_memory(const torch::Device& device);

// Makes `device` this process's current CUDA device (no-op for a CPU device), so that nothing a
// rank does creates a context on another rank's GPU.
void make_current(const torch::Device& device);

// The device's total memory in bytes (0 on CPU): autobatch sizes batches against it.
std::int64_t total_memory_bytes(const torch::Device& device);

}  // namespace libreyolo::core::device

// The CPU-only build's answers; the CUDA build uses cuda_info_cuda.cpp instead.
#include "libreyolo/core/device/cuda_info.hpp"

namespace libreyolo::core::device {

bool cuda_supports_bfloat16(const torch::Device&) { return false; }
double reserved_memory_gb(const torch::Device&) { return -1; }
double peak_memory_gb(const torch::Device&) { return -1; }
void reset_peak_memory(const torch::Device&) {}
void make_current(const torch::Device&) {}
std::int64_t total_memory_bytes(const torch::Device&) { return 0; }

}  // namespace libreyolo::core::device

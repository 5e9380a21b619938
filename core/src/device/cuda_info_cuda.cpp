// CUDA builds only (see core/CMakeLists.txt).
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>

#include "libreyolo/core/device/cuda_info.hpp"

namespace libreyolo::core::device {
namespace {

constexpr double kGB = 1024.0 * 1024.0 * 1024.0;
// Index of the all-pools aggregate in the allocator's stat arrays. StatType::AGGREGATE is 0 in
// every LibTorch, but the enum moved namespaces across versions; the index did not.
constexpr std::size_t kAggregate = 0;

int index_of(const torch::Device& device) { return device.has_index() ? device.index() : 0; }

}  // namespace

bool cuda_supports_bfloat16(const torch::Device& device) {
  if (!device.is_cuda()) return false;
  return at::cuda::getDeviceProperties(index_of(device))->major >= 8;
}

double reserved_memory_gb(const torch::Device& device) {
  if (!device.is_cuda()) return -1;
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index_of(device));
  return static_cast<double>(stats.reserved_bytes[kAggregate].current) / kGB;
}

double peak_memory_gb(const torch::Device& device) {
  if (!device.is_cuda()) return -1;
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index_of(device));
  return static_cast<double>(stats.allocated_bytes[kAggregate].peak) / kGB;
}

void reset_peak_memory(const torch::Device& device) {
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(index_of(device));
}

void make_current(const torch::Device& device) {
  if (device.is_cuda()) c10::cuda::set_device(static_cast<c10::DeviceIndex>(index_of(device)));
}

std::int64_t total_memory_bytes(const torch::Device& device) {
  if (!device.is_cuda()) return 0;
  return static_cast<std::int64_t>(at::cuda::getDeviceProperties(index_of(device))->totalGlobalMem);
}

}  // namespace libreyolo::core::device

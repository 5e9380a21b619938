#pragma once
// What the profiler asks of the device, behind an interface so that the profiler itself needs
// no LibTorch (and its unit tests can hand it a scripted device). make_device_probe() in
// torch_device_probe.hpp builds the real one.

#include <cstdint>
#include <string>
#include <vector>

#include "libreyolo/core/profiler/kernel_timeline.hpp"

namespace libreyolo::core::profiler {

// The CUDA caching allocator's numbers that reveal memory pressure.
struct AllocatorSnapshot {
  bool available = false;             // false: CPU device, or a build without CUDA
  std::int64_t alloc_retries = 0;     // cumulative: device mallocs retried after flushing the cache
  std::int64_t reserved_bytes = 0;    // held by the allocator now
  std::int64_t device_total_bytes = 0;
};

class DeviceProbe {
 public:
  virtual ~DeviceProbe() = default;
  // False on a CPU run: nothing to synchronise, no kernels, no device memory.
  virtual bool accelerator() const = 0;
  // "cpu", or "cuda:0 (NVIDIA H200)".
  virtual std::string description() const = 0;
  // Waits until the device has finished all queued work.
  virtual void synchronize() = 0;
  // Records every kernel, copy and memset from now until stop_kernel_recording(). Throws when
  // recording is not possible (the profiler then reports without a kernel timeline).
  virtual void start_kernel_recording() = 0;
  // Start times in microseconds since the Unix epoch (Kineto's clock).
  virtual std::vector<DeviceEvent> stop_kernel_recording() = 0;
  virtual AllocatorSnapshot allocator() const = 0;
};

}  // namespace libreyolo::core::profiler

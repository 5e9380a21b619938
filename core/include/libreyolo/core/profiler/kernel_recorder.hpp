#pragma once
// Records every CUDA kernel, copy and memset the GPU runs between start() and stop(), through
// LibTorch's Kineto profiler (CUPTI). Only one recorder may be active in a process.

#include <vector>

#include "libreyolo/core/profiler/kernel_timeline.hpp"

namespace libreyolo::core::profiler {

class KernelRecorder {
 public:
  KernelRecorder() = default;
  ~KernelRecorder();
  KernelRecorder(const KernelRecorder&) = delete;
  KernelRecorder& operator=(const KernelRecorder&) = delete;

  // Throws if Kineto cannot profile CUDA in this build.
  void start();
  // The device events since start(); synchronise the device first so that none is missing.
  std::vector<DeviceEvent> stop();

 private:
  bool recording_ = false;
};

}  // namespace libreyolo::core::profiler

#pragma once
// The real DeviceProbe for a LibTorch device: torch::cuda::synchronize, Kineto kernel
// recording (KernelRecorder) and the caching allocator's statistics; on a CPU device, a probe
// that reports no accelerator.

#include <c10/core/Device.h>

#include <memory>

#include "libreyolo/core/profiler/device_probe.hpp"

namespace libreyolo::core::profiler {

std::unique_ptr<DeviceProbe> make_device_probe(const c10::Device& device);

}  // namespace libreyolo::core::profiler

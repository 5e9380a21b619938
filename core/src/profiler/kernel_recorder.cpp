#include "libreyolo/core/profiler/kernel_recorder.hpp"

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/version.h>

#include <set>

namespace libreyolo::core::profiler {
namespace {

namespace impl = torch::profiler::impl;

// Kineto's event times: microseconds up to LibTorch 1.x, nanoseconds from 2.0 on.
double start_us(const torch::autograd::profiler::KinetoEvent& e) {
#if TORCH_VERSION_MAJOR >= 2
  return static_cast<double>(e.startNs()) / 1000.0;
#else
  return static_cast<double>(e.startUs());
#endif
}

double duration_us(const torch::autograd::profiler::KinetoEvent& e) {
#if TORCH_VERSION_MAJOR >= 2
  return static_cast<double>(e.durationNs()) / 1000.0;
#else
  return static_cast<double>(e.durationUs());
#endif
}

}  // namespace

KernelRecorder::~KernelRecorder() {
  if (recording_) {
    try {
      torch::autograd::profiler::disableProfiler();
    } catch (...) {
    }
  }
}

void KernelRecorder::start() {
  // CUDA activity only: host-side op events would add their own overhead to the window.
  const impl::ProfilerConfig config(impl::ProfilerState::KINETO);
  const std::set<impl::ActivityType> activities{impl::ActivityType::CUDA};
  torch::autograd::profiler::prepareProfiler(config, activities);
  torch::autograd::profiler::enableProfiler(config, activities);
  recording_ = true;
}

std::vector<DeviceEvent> KernelRecorder::stop() {
  recording_ = false;
  const auto result = torch::autograd::profiler::disableProfiler();
  std::vector<DeviceEvent> events;
  for (const auto& e : result->events()) {
    if (e.deviceType() != c10::DeviceType::CUDA) continue;
    events.push_back({e.name(), start_us(e), duration_us(e)});
  }
  return events;
}

}  // namespace libreyolo::core::profiler

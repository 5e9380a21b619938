#pragma once
// Synthetic profiled windows for the profiler's unit tests: steps with chosen phase lengths and
// GPU kernel timelines with a chosen busy time per step, laid out the way the profiler records
// them (milliseconds for steps, microseconds for kernels, both from the window origin).

#include <vector>

#include "libreyolo/core/profiler/profile_report.hpp"

namespace libreyolo::test {

struct SyntheticStep {
  double data_wait_ms = 0;  // first phase of every step
  double rest_ms = 10;      // forward .. other, split evenly over forward, loss, backward, optimizer
};

// `count` unsynchronised steps back to back from t = 0, then `synced` synchronised ones.
inline std::vector<core::profiler::StepRecord> make_steps(int count, SyntheticStep shape, int synced = 0) {
  using core::profiler::StepPhase;
  std::vector<core::profiler::StepRecord> steps;
  double t = 0;
  for (int i = 0; i < count + synced; ++i) {
    core::profiler::StepRecord step;
    step.index = i;
    step.synchronized = i >= count;
    step.start_ms = t;
    step.phases.push_back({StepPhase::data_wait, t, shape.data_wait_ms});
    double p = t + shape.data_wait_ms;
    for (const auto phase : {StepPhase::forward, StepPhase::loss, StepPhase::backward, StepPhase::optimizer}) {
      step.phases.push_back({phase, p, shape.rest_ms / 4});
      p += shape.rest_ms / 4;
    }
    step.wall_ms = shape.data_wait_ms + shape.rest_ms;
    t += step.wall_ms;
    steps.push_back(step);
  }
  return steps;
}

// In each unsynchronised step, `kernels` back-to-back kernels of `kernel_us` each, starting
// `offset_ms` after the step begins.
inline std::vector<core::profiler::DeviceEvent> make_kernels(const std::vector<core::profiler::StepRecord>& steps,
                                                            int kernels, double kernel_us, double offset_ms) {
  std::vector<core::profiler::DeviceEvent> events;
  for (const auto& step : steps) {
    if (step.synchronized) continue;
    double t = (step.start_ms + offset_ms) * 1000.0;
    for (int k = 0; k < kernels; ++k) {
      events.push_back({k % 2 ? "gemm" : "elementwise", t, kernel_us});
      t += kernel_us;
    }
  }
  return events;
}

}  // namespace libreyolo::test

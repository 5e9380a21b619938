#include "libreyolo/core/profiler/window_measures.hpp"

#include <algorithm>

namespace libreyolo::core::profiler {
namespace {

struct Span {
  double begin_us, end_us;
};

std::vector<Span> unsynchronized_spans(const std::vector<StepRecord>& steps) {
  std::vector<Span> spans;
  for (const auto& step : steps) {
    if (!step.synchronized) spans.push_back({step.start_ms * 1000.0, (step.start_ms + step.wall_ms) * 1000.0});
  }
  return spans;
}

}  // namespace

std::vector<DeviceEvent> clip_to_unsynchronized_steps(const std::vector<StepRecord>& steps,
                                                      const std::vector<DeviceEvent>& kernels) {
  const auto spans = unsynchronized_spans(steps);
  std::vector<DeviceEvent> clipped;
  clipped.reserve(kernels.size());
  for (const auto& k : kernels) {
    const double end = k.start_us + k.duration_us;
    for (const auto& span : spans) {
      const double begin = std::max(k.start_us, span.begin_us), finish = std::min(end, span.end_us);
      if (finish > begin) clipped.push_back({k.name, begin, finish - begin});
    }
  }
  return clipped;
}

bool starts_in_unsynchronized_step(const std::vector<StepRecord>& steps, double start_us) {
  for (const auto& span : unsynchronized_spans(steps)) {
    if (start_us >= span.begin_us && start_us < span.end_us) return true;
  }
  return false;
}

double busy_within_steps_us(const std::vector<StepRecord>& steps, const std::vector<DeviceEvent>& kernels) {
  return busy_time_us(clip_to_unsynchronized_steps(steps, kernels));
}

WindowMeasures measure_window(const std::vector<StepRecord>& steps, const std::vector<DeviceEvent>& kernels,
                              bool accelerator, bool kernels_recorded) {
  WindowMeasures m;
  m.accelerator = accelerator;
  m.kernels_recorded = accelerator && kernels_recorded;
  double wall_ms = 0, data_wait_ms = 0;
  for (const auto& step : steps) {
    if (step.synchronized) continue;
    ++m.steps;
    wall_ms += step.wall_ms;
    for (const auto& span : step.phases) {
      if (span.phase == StepPhase::data_wait) data_wait_ms += span.duration_ms;
    }
  }
  if (m.steps == 0 || wall_ms <= 0) return m;
  m.step_wall_ms = wall_ms / m.steps;
  m.data_wait_share = data_wait_ms / wall_ms;
  if (!m.kernels_recorded) return m;

  m.utilization = std::min(1.0, busy_within_steps_us(steps, kernels) / (wall_ms * 1000.0));
  double started = 0, duration_us = 0;
  for (const auto& k : kernels) {
    if (!starts_in_unsynchronized_step(steps, k.start_us)) continue;
    ++started;
    duration_us += k.duration_us;
  }
  m.kernels_per_step = started / m.steps;
  m.mean_kernel_us = started > 0 ? duration_us / started : 0;
  return m;
}

}  // namespace libreyolo::core::profiler

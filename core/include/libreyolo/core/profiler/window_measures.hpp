#pragma once
// Reduces the unsynchronised half of a window to the verdict's inputs: mean step wall time,
// GPU utilization, data-wait share and kernel counts. The caller adds the allocator's numbers.

#include <vector>

#include "libreyolo/core/profiler/kernel_timeline.hpp"
#include "libreyolo/core/profiler/profile_report.hpp"
#include "libreyolo/core/profiler/verdict.hpp"

namespace libreyolo::core::profiler {

// The kernels' parts that fall inside the unsynchronised steps' [start, start + wall) spans, names
// kept (a kernel across two steps' boundary gives one piece per step).
std::vector<DeviceEvent> clip_to_unsynchronized_steps(const std::vector<StepRecord>& steps,
                                                      const std::vector<DeviceEvent>& kernels);

// Whether a kernel starting at `start_us` began inside one of the unsynchronised steps: the
// work the host launched (or queued) during a measured step.
bool starts_in_unsynchronized_step(const std::vector<StepRecord>& steps, double start_us);

// GPU busy time inside the unsynchronised steps: the union of kernel intervals, each clipped to
// the steps' [start, start + wall) spans, so that work between steps (an epoch's validation
// between two measured steps) does not count. Kernels in microseconds from the window origin.
double busy_within_steps_us(const std::vector<StepRecord>& steps, const std::vector<DeviceEvent>& kernels);

// Utilization = busy_within_steps_us / the unsynchronised steps' summed wall time.
// `kernels_recorded` false (or no accelerator): utilization and kernel numbers stay 0.
WindowMeasures measure_window(const std::vector<StepRecord>& steps, const std::vector<DeviceEvent>& kernels,
                              bool accelerator, bool kernels_recorded);

}  // namespace libreyolo::core::profiler

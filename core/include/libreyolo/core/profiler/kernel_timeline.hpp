#pragma once
// What the GPU did during a recorded window: kernel (and copy/memset) events reduced to the
// numbers a verdict needs. Free of LibTorch; kernel_recorder.hpp fills it from Kineto.

#include <cstdint>
#include <string>
#include <vector>

namespace libreyolo::core::profiler {

struct DeviceEvent {
  std::string name;
  double start_us = 0;
  double duration_us = 0;
};

struct KernelTally {
  std::string name;
  std::int64_t count = 0;
  double total_us = 0;
};

struct KernelSummary {
  std::int64_t events = 0;  // kernels, copies and memsets: everything the GPU executed
  double busy_us = 0;       // the union of their intervals: time the GPU was doing something
  double kernel_us = 0;     // the sum of their durations: more than busy_us where streams overlap
  std::vector<KernelTally> by_name;  // most total time first
};

// A stretch in which the GPU ran nothing, between the events that end and start it.
struct IdleGap {
  double start_us = 0;
  double length_us = 0;
  std::string before, after;  // the last event before the gap, the first after it
};

// Length of the union of [start, start + duration) intervals, in any order.
double busy_time_us(std::vector<DeviceEvent> events);

KernelSummary summarize(const std::vector<DeviceEvent>& events);

// Every idle stretch between the first event and the last, in time order.
std::vector<IdleGap> idle_gaps(std::vector<DeviceEvent> events);

// The `count` longest idle stretches between the first event and the last, longest first: where
// the GPU waited for the host (a launch-bound step shows many; a compute-bound one none).
std::vector<IdleGap> longest_idle_gaps(std::vector<DeviceEvent> events, std::size_t count);

// Idle time between the first event and the last, split by gap length: element i holds the
// gaps shorter than upper_bounds_us[i] (and not counted before); the last element, the rest.
// Microsecond gaps are the GPU moving between dependent kernels (inside a graph too); long
// ones are the GPU waiting for the host.
std::vector<double> idle_time_by_gap_length(std::vector<DeviceEvent> events, const std::vector<double>& upper_bounds_us);

}  // namespace libreyolo::core::profiler

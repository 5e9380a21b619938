#pragma once
// Kernels from concurrent streams overlap in time; a trace viewer's track (and the timeline's
// row) must not. Lanes are assigned greedily: each kernel, in start order, takes the first lane
// that is free by its start.

#include <vector>

#include "libreyolo/core/profiler/kernel_timeline.hpp"

namespace libreyolo::core::profiler {

// lanes[i] is the lane of events[i] (0-based; most windows need one or two).
std::vector<int> assign_lanes(const std::vector<DeviceEvent>& events);

// The events merged into busy blocks: consecutive (start-ordered) events closer than `gap_us`
// join one block; `counts` receives how many events each block holds. The timeline draws these
// when a window has more kernels than it can draw one by one.
std::vector<DeviceEvent> merge_into_blocks(const std::vector<DeviceEvent>& events, double gap_us,
                                           std::vector<int>& counts);

}  // namespace libreyolo::core::profiler

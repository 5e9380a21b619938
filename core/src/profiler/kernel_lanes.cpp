#include "libreyolo/core/profiler/kernel_lanes.hpp"

#include <algorithm>
#include <numeric>

namespace libreyolo::core::profiler {
namespace {

std::vector<std::size_t> start_order(const std::vector<DeviceEvent>& events) {
  std::vector<std::size_t> order(events.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return events[a].start_us < events[b].start_us; });
  return order;
}

}  // namespace

std::vector<int> assign_lanes(const std::vector<DeviceEvent>& events) {
  std::vector<int> lanes(events.size(), 0);
  std::vector<double> lane_free_at;  // end of the last event in each lane
  for (const auto i : start_order(events)) {
    const auto& e = events[i];
    std::size_t lane = 0;
    while (lane < lane_free_at.size() && lane_free_at[lane] > e.start_us) ++lane;
    if (lane == lane_free_at.size()) lane_free_at.push_back(0);
    lane_free_at[lane] = e.start_us + e.duration_us;
    lanes[i] = static_cast<int>(lane);
  }
  return lanes;
}

std::vector<DeviceEvent> merge_into_blocks(const std::vector<DeviceEvent>& events, double gap_us,
                                           std::vector<int>& counts) {
  std::vector<DeviceEvent> blocks;
  counts.clear();
  double block_end = 0;
  for (const auto i : start_order(events)) {
    const auto& e = events[i];
    const double end = e.start_us + e.duration_us;
    if (!blocks.empty() && e.start_us <= block_end + gap_us) {
      block_end = std::max(block_end, end);
      blocks.back().duration_us = block_end - blocks.back().start_us;
      ++counts.back();
      continue;
    }
    blocks.push_back({std::string(), e.start_us, e.duration_us});
    counts.push_back(1);
    block_end = end;
  }
  return blocks;
}

}  // namespace libreyolo::core::profiler

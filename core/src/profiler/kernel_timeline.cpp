#include "libreyolo/core/profiler/kernel_timeline.hpp"

#include <algorithm>
#include <map>

namespace libreyolo::core::profiler {

namespace {

void sort_by_start(std::vector<DeviceEvent>& events) {
  std::sort(events.begin(), events.end(),
            [](const DeviceEvent& a, const DeviceEvent& b) { return a.start_us < b.start_us; });
}

}  // namespace

double busy_time_us(std::vector<DeviceEvent> events) {
  sort_by_start(events);
  double busy = 0, open_start = 0, open_end = 0;
  bool open = false;
  for (const auto& e : events) {
    const double end = e.start_us + e.duration_us;
    if (open && e.start_us <= open_end) {
      open_end = std::max(open_end, end);  // overlaps (concurrent streams) or touches
      continue;
    }
    if (open) busy += open_end - open_start;
    open = true;
    open_start = e.start_us;
    open_end = end;
  }
  if (open) busy += open_end - open_start;
  return busy;
}

KernelSummary summarize(const std::vector<DeviceEvent>& events) {
  KernelSummary summary;
  summary.events = static_cast<std::int64_t>(events.size());
  summary.busy_us = busy_time_us(events);
  std::map<std::string, KernelTally> tallies;
  for (const auto& e : events) {
    auto& tally = tallies[e.name];
    tally.name = e.name;
    ++tally.count;
    tally.total_us += e.duration_us;
    summary.kernel_us += e.duration_us;
  }
  for (auto& entry : tallies) summary.by_name.push_back(std::move(entry.second));
  std::sort(summary.by_name.begin(), summary.by_name.end(),
            [](const KernelTally& a, const KernelTally& b) { return a.total_us > b.total_us; });
  return summary;
}

std::vector<IdleGap> idle_gaps(std::vector<DeviceEvent> events) {
  sort_by_start(events);
  std::vector<IdleGap> gaps;
  const DeviceEvent* last_to_end = nullptr;  // of everything so far, the event ending latest
  double busy_until = 0;
  for (const auto& e : events) {
    if (last_to_end && e.start_us > busy_until) {
      gaps.push_back({busy_until, e.start_us - busy_until, last_to_end->name, e.name});
    }
    const double end = e.start_us + e.duration_us;
    if (!last_to_end || end > busy_until) {
      busy_until = end;
      last_to_end = &e;
    }
  }
  return gaps;
}

std::vector<IdleGap> longest_idle_gaps(std::vector<DeviceEvent> events, std::size_t count) {
  auto gaps = idle_gaps(std::move(events));
  std::sort(gaps.begin(), gaps.end(), [](const IdleGap& a, const IdleGap& b) { return a.length_us > b.length_us; });
  if (gaps.size() > count) gaps.resize(count);
  return gaps;
}

std::vector<double> idle_time_by_gap_length(std::vector<DeviceEvent> events, const std::vector<double>& upper_bounds_us) {
  std::vector<double> idle(upper_bounds_us.size() + 1, 0.0);
  for (const auto& gap : idle_gaps(std::move(events))) {
    std::size_t bucket = 0;
    while (bucket < upper_bounds_us.size() && gap.length_us >= upper_bounds_us[bucket]) ++bucket;
    idle[bucket] += gap.length_us;
  }
  return idle;
}

}  // namespace libreyolo::core::profiler

#include "libreyolo/core/trainer/host_phase_clock.hpp"

#include <algorithm>
#include <chrono>

namespace libreyolo::core::trainer {
namespace {

double unix_now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

void HostPhaseClock::record(const std::string& phase, double unix_us) {
  if (phase == "start") ++steps_;
  marks_.push_back({phase, unix_us});
}

void HostPhaseClock::step_begins() { record("start", unix_now_us()); }

void HostPhaseClock::phase_begins(profiler::StepPhase phase) { record(profiler::to_string(phase), unix_now_us()); }

void HostPhaseClock::train_step_returned() { record("synchronize", unix_now_us()); }

void HostPhaseClock::step_ends() { record("", unix_now_us()); }

std::vector<HostPhaseTime> HostPhaseClock::attribute(const std::vector<profiler::DeviceEvent>& events) const {
  std::vector<HostPhaseTime> phases;
  auto entry = [&phases](const std::string& name) -> HostPhaseTime& {
    auto it = std::find_if(phases.begin(), phases.end(), [&](const HostPhaseTime& p) { return p.phase == name; });
    if (it != phases.end()) return *it;
    phases.emplace_back();
    phases.back().phase = name;
    return phases.back();
  };
  for (std::size_t i = 0; i + 1 < marks_.size(); ++i) {
    if (!marks_[i].phase.empty()) entry(marks_[i].phase).host_ms += (marks_[i + 1].unix_us - marks_[i].unix_us) / 1000.0;
  }
  for (const auto& gap : profiler::idle_gaps(events)) {
    const double resumed = gap.start_us + gap.length_us;
    // The last mark at or before the moment the GPU resumed.
    const auto after = std::upper_bound(marks_.begin(), marks_.end(), resumed,
                                        [](double t, const Mark& m) { return t < m.unix_us; });
    if (after == marks_.begin()) continue;
    const auto& mark = *(after - 1);
    entry(mark.phase.empty() ? "between steps" : mark.phase).gpu_idle_ms += gap.length_us / 1000.0;
  }
  const double steps = std::max(steps_, 1);
  for (auto& p : phases) {
    p.host_ms /= steps;
    p.gpu_idle_ms /= steps;
  }
  return phases;
}

}  // namespace libreyolo::core::trainer

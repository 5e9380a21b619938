#include "libreyolo/core/profiler/profile_report.hpp"

#include <array>

namespace libreyolo::core::profiler {

std::vector<PhaseShare> phase_breakdown(const std::vector<StepRecord>& steps) {
  std::array<double, kStepPhaseCount> synced{}, unsynced{};
  std::array<bool, kStepPhaseCount> seen{};
  int synced_steps = 0, unsynced_steps = 0;
  double synced_total = 0;
  for (const auto& step : steps) {
    (step.synchronized ? synced_steps : unsynced_steps) += 1;
    for (const auto& span : step.phases) {
      const auto i = static_cast<std::size_t>(span.phase);
      seen[i] = true;
      (step.synchronized ? synced : unsynced)[i] += span.duration_ms;
      if (step.synchronized) synced_total += span.duration_ms;
    }
  }
  std::vector<PhaseShare> shares;
  for (int i = 0; i < kStepPhaseCount; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!seen[k]) continue;
    PhaseShare share;
    share.phase = static_cast<StepPhase>(i);
    share.synchronized_ms = synced_steps ? synced[k] / synced_steps : 0;
    share.unsynchronized_ms = unsynced_steps ? unsynced[k] / unsynced_steps : 0;
    share.share = synced_total > 0 ? synced[k] / synced_total : 0;
    shares.push_back(share);
  }
  return shares;
}

double mean_step_ms(const std::vector<StepRecord>& steps, bool synchronized) {
  double total = 0;
  int count = 0;
  for (const auto& step : steps) {
    if (step.synchronized != synchronized) continue;
    total += step.wall_ms;
    ++count;
  }
  return count ? total / count : 0;
}

}  // namespace libreyolo::core::profiler

#include "libreyolo/core/profiler/communication_overlap.hpp"

#include "libreyolo/core/profiler/window_measures.hpp"

namespace libreyolo::core::profiler {

bool is_communication_kernel(const std::string& name) { return name.rfind("nccl", 0) == 0; }

CommunicationOverlap communication_overlap(const std::vector<StepRecord>& steps,
                                           const std::vector<DeviceEvent>& kernels) {
  CommunicationOverlap result;
  for (const auto& step : steps) result.steps += step.synchronized ? 0 : 1;
  std::vector<DeviceEvent> communication, computation, all;
  for (auto& piece : clip_to_unsynchronized_steps(steps, kernels)) {
    (is_communication_kernel(piece.name) ? communication : computation).push_back(piece);
    all.push_back(std::move(piece));
  }
  if (communication.empty()) return result;
  // Kernels are counted by where they start (one across two steps' boundary counts once).
  for (const auto& k : kernels) {
    if (is_communication_kernel(k.name) && starts_in_unsynchronized_step(steps, k.start_us)) ++result.kernels;
  }
  // |C ∩ K| = |C| + |K| - |C ∪ K|, each the union of its intervals.
  result.communication_us = busy_time_us(communication);
  result.overlapped_us = result.communication_us + busy_time_us(computation) - busy_time_us(std::move(all));
  return result;
}

void record_communication(ProfileReport& report, const CommunicationOverlap& overlap) {
  if (overlap.steps == 0) return;
  report.communication_ms_per_step = overlap.communication_us / 1000.0 / overlap.steps;
  report.communication_overlapped_ms_per_step = overlap.overlapped_us / 1000.0 / overlap.steps;
  report.communication_kernels_per_step = static_cast<double>(overlap.kernels) / overlap.steps;
}

}  // namespace libreyolo::core::profiler

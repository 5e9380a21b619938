#include "libreyolo/core/profiler/verdict.hpp"

#include <algorithm>
#include <cstdio>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::profiler {
namespace {

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * share);
  return text;
}

std::string fixed(double value, int decimals) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

Verdict make(VerdictKind kind, std::string reason) {
  Verdict verdict;
  verdict.kind = kind;
  verdict.reason = std::move(reason);
  verdict.levers = verdict_levers(kind);
  return verdict;
}

}  // namespace

const char* verdict_name(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::none: return "none";
    case VerdictKind::dataloader: return "dataloader";
    case VerdictKind::host_launch: return "host / launch";
    case VerdictKind::compute: return "compute";
    case VerdictKind::memory_pressure: return "memory-pressure";
  }
  return "none";
}

VerdictKind parse_verdict_name(const std::string& name) {
  for (const auto kind : {VerdictKind::none, VerdictKind::dataloader, VerdictKind::host_launch, VerdictKind::compute,
                          VerdictKind::memory_pressure}) {
    if (name == verdict_name(kind)) return kind;
  }
  throw Error("unknown verdict '" + name + "'", "expected dataloader, host / launch, compute, memory-pressure or none",
              "was the file written by libreyolo-host's profiler?");
}

const char* verdict_meaning(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::none: return "no verdict";
    case VerdictKind::dataloader: return "the GPU waits for input";
    case VerdictKind::host_launch: return "the GPU is fed too slowly: many small kernels";
    case VerdictKind::compute: return "the GPU is saturated";
    case VerdictKind::memory_pressure: return "the allocator thrashes at the memory edge";
  }
  return "";
}

std::vector<std::string> verdict_levers(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::none: return {};
    case VerdictKind::dataloader:
      return {"more workers (workers=)", "cache=ram or cache=disk", "lighter augmentation", "larger batch"};
    case VerdictKind::host_launch:
      return {"larger batch", "CUDA graph (cuda_graph=true)", "fewer host syncs per step"};
    case VerdictKind::compute: return {"AMP or bfloat16 (amp=true, amp_dtype=bfloat16)", "or accept it"};
    case VerdictKind::memory_pressure:
      return {"lower batch", "the utilization number is not trustworthy here"};
  }
  return {};
}

Verdict decide_verdict(const WindowMeasures& m) {
  using T = VerdictThresholds;
  if (!m.accelerator) {
    return make(VerdictKind::none,
                "no accelerator is present: the phase timings are host wall time; utilization and a verdict need a GPU");
  }
  if (!m.kernels_recorded) {
    return make(VerdictKind::none, "the GPU's kernel timeline could not be recorded, so utilization is unknown");
  }
  const bool retried = m.alloc_retries > 0;
  const bool at_edge = m.reserved_fraction >= T::memory_edge_reserved;
  if (retried || at_edge) {
    std::string reason = "the caching allocator ";
    if (retried) reason += "retried " + std::to_string(m.alloc_retries) + " allocations (flushed its cache) during the window";
    if (retried && at_edge) reason += " and ";
    if (at_edge) reason += "holds " + percent(m.reserved_fraction) + " of the device (>= " + percent(T::memory_edge_reserved) + ")";
    auto verdict = make(VerdictKind::memory_pressure, reason);
    verdict.utilization_trusted = false;
    return verdict;
  }
  if (m.utilization >= T::compute_utilization) {
    return make(VerdictKind::compute, "GPU busy " + percent(m.utilization) + " of the step wall time (>= " +
                                          percent(T::compute_utilization) + ")");
  }
  const double idle = std::max(0.0, 1.0 - m.utilization);
  const double needed = std::max(T::dataloader_min_wait, T::dataloader_share_of_idle * idle);
  const std::string busy = "GPU busy " + percent(m.utilization) + " (< " + percent(T::compute_utilization) + ")";
  if (m.data_wait_share >= needed) {
    return make(VerdictKind::dataloader, busy + "; the host waited for the loader " + percent(m.data_wait_share) +
                                             " of the step, at least half of the GPU's idle " + percent(idle));
  }
  return make(VerdictKind::host_launch,
              busy + "; data wait " + percent(m.data_wait_share) + " explains less than half of the idle " +
                  percent(idle) + ": the host launches " + fixed(m.kernels_per_step, 0) + " kernels per step, " +
                  fixed(m.mean_kernel_us, 1) + " us each on average");
}

}  // namespace libreyolo::core::profiler

#include "libreyolo/core/profiler/report_text.hpp"

#include <algorithm>
#include <cstdio>

namespace libreyolo::core::profiler {
namespace {

template <class... Args>
std::string format(const char* pattern, Args... args) {
  char text[512];
  std::snprintf(text, sizeof text, pattern, args...);
  return text;
}

std::string percent(double share) { return format("%.1f%%", 100.0 * share); }

// Kernel names are whole C++ signatures; the start says which kernel it is.
std::string shortened(const std::string& name, std::size_t width) {
  return name.size() <= width ? name : name.substr(0, width - 3) + "...";
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : separator) + part;
  return text;
}

// A distributed run over NCCL: how much of the communication other kernels hid (empty otherwise).
// sync_bn's statistics are NCCL kernels too, and sit on the critical path by nature.
std::string communication_line(const ProfileReport& r) {
  if (r.communication_kernels_per_step <= 0) return "";
  const double total = r.communication_ms_per_step, overlapped = r.communication_overlapped_ms_per_step;
  return format("  NCCL        %.2f ms a step on the GPU (%.0f kernels: the gradient buckets, and sync_bn's "
                "statistics when on), %s of it beside other kernels, %.2f ms exposed\n",
                total, r.communication_kernels_per_step, percent(total > 0 ? overlapped / total : 0).c_str(),
                total - overlapped);
}

}  // namespace

std::string format_summary(const ProfileReport& r) {
  const auto& m = r.measures;
  const int total = static_cast<int>(r.steps.size());
  std::string text = format("window: %d steps after %d skipped: %d unsynchronised (the verdict's), %d with a device "
                            "sync at every phase boundary (attribution)\n",
                            total, r.skip, r.first_half, total - r.first_half);
  text += format("  step time   %.2f ms unsynchronised, %.2f ms synchronised\n", mean_step_ms(r.steps, false),
                 mean_step_ms(r.steps, true));
  if (m.kernels_recorded) {
    text += "  GPU busy    " + percent(m.utilization) + " of the step wall time" +
            (r.verdict.utilization_trusted ? "" : " (not trustworthy under memory pressure)") + "\n";
    text += format("  kernels     %lld recorded, %.0f per step, %.1f us mean\n", static_cast<long long>(r.kernel_events),
                   m.kernels_per_step, m.mean_kernel_us);
  } else {
    text += std::string("  GPU busy    - (") + (m.accelerator ? "no kernel timeline" : "no accelerator") + ")\n";
  }
  text += communication_line(r);
  text += "  data wait   " + percent(m.data_wait_share) + " of the step\n";
  if (r.device_total_gb > 0) {
    text += format("  memory      %.2f of %.2f GB reserved (%s), %lld allocator retries\n", r.reserved_gb,
                   r.device_total_gb, percent(m.reserved_fraction).c_str(), static_cast<long long>(m.alloc_retries));
  }
  const auto& v = r.verdict;
  if (v.kind == VerdictKind::none) {
    text += "verdict: none: " + v.reason + "\n";
  } else {
    text += std::string("verdict: ") + verdict_name(v.kind) + " (" + verdict_meaning(v.kind) + ")\n";
    text += "  why: " + v.reason + "\n";
    text += "  levers: " + join(v.levers, "; ") + "\n";
  }
  return text;
}

std::string format_phases(const ProfileReport& r) {
  std::string text = "phases, mean per step: synchronised (device sync at each boundary: attribution) and unsynchronised (host side)\n";
  text += format("  %-10s %12s %8s %16s\n", "phase", "synced ms", "share", "unsynced ms");
  for (const auto& p : phase_breakdown(r.steps)) {
    text += format("  %-10s %12.3f %8s %16.3f\n", to_string(p.phase), p.synchronized_ms, percent(p.share).c_str(),
                   p.unsynchronized_ms);
  }
  return text;
}

std::string format_kernels(const ProfileReport& r, std::size_t top) {
  if (r.kernels.empty()) {
    return r.measures.accelerator ? "kernels: none recorded\n" : "kernels: none (no accelerator)\n";
  }
  const std::size_t shown = std::min(top, r.kernels.size());
  double total_us = 0;
  for (const auto& k : r.kernels) total_us += k.total_us;
  std::string text = format("top %zu of %zu kernels by GPU time (unsynchronised half, %lld events)\n", shown,
                            r.kernels.size(), static_cast<long long>(r.kernel_events));
  text += format("  %10s %7s %8s %10s  %s\n", "total ms", "share", "count", "mean us", "name");
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& k = r.kernels[i];
    text += format("  %10.3f %7s %8lld %10.2f  ", k.total_us / 1000.0,
                   percent(total_us > 0 ? k.total_us / total_us : 0).c_str(), static_cast<long long>(k.count),
                   k.count ? k.total_us / static_cast<double>(k.count) : 0.0) +
            shortened(k.name, 100) + "\n";
  }
  return text;
}

std::string format_report(const ProfileReport& r) {
  std::string text = "profile\n" + format_phases(r);
  if (!r.kernels.empty()) text += format_kernels(r, 10);
  return text + format_summary(r);
}

}  // namespace libreyolo::core::profiler

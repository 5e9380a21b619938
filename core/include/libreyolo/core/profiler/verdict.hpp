#pragma once
// The profiler's verdict (docs/design.md#profiler): exactly one of four named problems, with the
// levers that address it and the numbers that decided it. A pure function of a few measured
// numbers, so every rule is unit-tested on synthetic windows; docs/training-performance.md
// states the same rules with the same thresholds.
//
// Only the unsynchronised half of the window feeds the verdict: the synchronised half gives the
// loader's workers slack at every phase boundary and would hide starvation.

#include <cstdint>
#include <string>
#include <vector>

namespace libreyolo::core::profiler {

enum class VerdictKind {
  none,             // no verdict: no accelerator, or its kernels could not be recorded
  dataloader,       // the GPU waits for input
  host_launch,      // the GPU is fed too slowly: many small kernels
  compute,          // the GPU is saturated
  memory_pressure,  // the allocator thrashes at the memory edge
};

// "dataloader", "host / launch", "compute", "memory-pressure", or "none".
const char* verdict_name(VerdictKind kind);
// The inverse of verdict_name (reading a saved profile.json); throws core::Error otherwise.
VerdictKind parse_verdict_name(const std::string& name);
// The verdict table's meaning column (docs/design.md#profiler), one line.
const char* verdict_meaning(VerdictKind kind);
// The verdict table's levers column (docs/design.md#profiler), one lever per entry.
std::vector<std::string> verdict_levers(VerdictKind kind);

// What the unsynchronised half of the window measured: the verdict's inputs.
struct WindowMeasures {
  bool accelerator = false;        // false on a CPU run: no kernels, no device memory
  bool kernels_recorded = false;   // Kineto delivered the half's kernel timeline
  int steps = 0;                   // steps in the unsynchronised half
  double step_wall_ms = 0;         // mean step wall time (no syncs added)
  double utilization = 0;          // kernel busy time (interval union) / step wall time
  double data_wait_share = 0;      // share of the step wall time the host waited for the loader
  double kernels_per_step = 0;     // kernels, copies and memsets started per step
  double mean_kernel_us = 0;       // their mean duration
  std::int64_t alloc_retries = 0;  // caching-allocator retries during the window (device malloc
                                   // failed, the cache was flushed, the malloc retried)
  double reserved_fraction = -1;   // allocator-reserved memory / device total at the end; -1: unknown
};

// The rules' thresholds; docs/training-performance.md quotes them.
struct VerdictThresholds {
  // At or above this utilization the GPU is saturated (practitioners aim for > 0.9 and call
  // < 0.7 a clear bottleneck; 0.8 splits the difference).
  static constexpr double compute_utilization = 0.80;
  // Data wait explains the GPU's idle time when it covers at least this share of it...
  static constexpr double dataloader_share_of_idle = 0.5;
  // ...and is at least this share of the step (below it the wait is noise).
  static constexpr double dataloader_min_wait = 0.05;
  // Reserved memory at or above this share of the device means the next growth cannot fit.
  static constexpr double memory_edge_reserved = 0.97;
};

struct Verdict {
  VerdictKind kind = VerdictKind::none;
  std::string reason;               // the rule that fired, with its numbers
  std::vector<std::string> levers;  // docs/design.md#profiler's levers for `kind`
  bool utilization_trusted = true;  // false under memory pressure: allocator syncs distort it
};

// Rules, first match wins:
//   1. no accelerator, or no kernel timeline            -> none
//   2. allocator retries > 0, or reserved >= 97% of the device -> memory-pressure
//   3. utilization >= 0.80                               -> compute
//   4. data wait >= 0.05 of the step and >= half of the idle share (1 - utilization)
//                                                        -> dataloader
//   5. otherwise (the GPU idles while the host is busy)  -> host / launch
Verdict decide_verdict(const WindowMeasures& measures);

}  // namespace libreyolo::core::profiler

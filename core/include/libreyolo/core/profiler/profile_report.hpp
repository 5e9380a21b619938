#pragma once
// Everything one profiled window produced, as plain data: what profile.json holds and what the
// report, the timeline and the `profile` subcommands are made from. Free of LibTorch.
//
// Times are milliseconds (steps, phases) or microseconds (kernels) from the window's origin:
// the beginning of its first measured step.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/profiler/kernel_timeline.hpp"
#include "libreyolo/core/profiler/step_observer.hpp"
#include "libreyolo/core/profiler/verdict.hpp"

namespace libreyolo::core::profiler {

struct PhaseSpan {
  StepPhase phase = StepPhase::other;
  double start_ms = 0;
  double duration_ms = 0;
};

struct StepRecord {
  int index = 0;              // 0-based within the window
  bool synchronized = false;  // second half: a device sync at every phase boundary
  double start_ms = 0;
  double wall_ms = 0;
  std::vector<PhaseSpan> phases;  // in the order they ran
};

// One phase's mean time per step, in each half of the window.
struct PhaseShare {
  StepPhase phase = StepPhase::other;
  double synchronized_ms = 0;    // attribution: includes the GPU work of the phase
  double share = 0;              // of the synchronised step time
  double unsynchronized_ms = 0;  // host-side only (launch time, waiting)
};

using TextPairs = std::vector<std::pair<std::string, std::string>>;

struct ProfileReport {
  TextPairs config;       // the run's options that matter to speed, as text
  TextPairs environment;  // machine, device, LibTorch
  int skip = 0;           // steps discarded before the window
  int first_half = 0;     // unsynchronised steps (the rest are synchronised)
  std::vector<StepRecord> steps;
  WindowMeasures measures;
  Verdict verdict;
  double reserved_gb = -1, device_total_gb = -1;  // -1: no device memory (CPU)
  // Kernels of the unsynchronised half: tallies by name (most time first) and their timeline.
  std::int64_t kernel_events = 0;
  double kernel_busy_us = 0;   // union of intervals inside the half's steps
  std::string kernel_clock;    // "unix" (Kineto's clock is the host's) or "realigned" (see report)
  std::vector<KernelTally> kernels;
  std::vector<DeviceEvent> kernel_timeline;  // artifacts only; profile.json keeps the tallies
  // Distributed runs over NCCL: the communication kernels and how much of them ran beside
  // computation (communication_overlap.hpp); all zero otherwise.
  double communication_ms_per_step = 0;
  double communication_overlapped_ms_per_step = 0;
  double communication_kernels_per_step = 0;
};

// Mean time per step of every phase that ran, in StepPhase order.
std::vector<PhaseShare> phase_breakdown(const std::vector<StepRecord>& steps);

// Mean wall time of the steps with synchronized == `synchronized` (0 when there are none).
double mean_step_ms(const std::vector<StepRecord>& steps, bool synchronized);

}  // namespace libreyolo::core::profiler

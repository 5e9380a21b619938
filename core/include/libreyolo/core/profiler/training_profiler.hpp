#pragma once
// train profile=true (docs/design.md#profiler): the StepObserver the trainer attaches. It lets
// `skip` steps pass, then records `steps` steps: the first half (rounded up) with no added
// synchronisation (step wall time, host phase marks, and on a GPU every kernel through the
// device probe), the second half with a device sync at every phase boundary, so each phase's
// time includes its GPU work. After the last step it builds the report, writes the artifacts
// to `output_dir`, logs the report and reports finished(): the trainer then detaches it.
//
// Free of LibTorch: the device is reached through DeviceProbe.

#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

#include "libreyolo/core/profiler/device_probe.hpp"
#include "libreyolo/core/profiler/profile_report.hpp"
#include "libreyolo/core/profiler/step_observer.hpp"

namespace libreyolo::core::profiler {

struct ProfilerSettings {
  int skip = 5;   // steps discarded first (warm-up: cuDNN autotuning, allocator growth, loader start)
  int steps = 20; // steps measured
  std::filesystem::path output_dir;  // <run>/prof
  TextPairs config, environment;     // copied into profile.json
};

class TrainingProfiler final : public StepObserver {
 public:
  TrainingProfiler(ProfilerSettings settings, std::unique_ptr<DeviceProbe> probe);
  ~TrainingProfiler() override;

  void step_begins() override;
  void phase_begins(StepPhase phase) override;
  void step_ends() override;

  // The window is measured and reported: detach the profiler.
  bool finished() const { return finished_; }
  // The run is over; says once, as a warning, if the window was never filled.
  void run_ended();
  // The report, once finished().
  const ProfileReport& report() const { return report_; }

 private:
  using Clock = std::chrono::steady_clock;
  double ms_since_origin(Clock::time_point t) const;
  void begin_window();
  void close_phase(double now_ms);
  void finish();
  ProfileReport build_report();

  ProfilerSettings settings_;
  std::unique_ptr<DeviceProbe> probe_;
  int first_half_ = 0;
  int ended_steps_ = 0;  // steps ended since attach (skipped ones included)
  bool window_started_ = false, in_step_ = false, recording_ = false, recording_failed_ = false, finished_ = false;
  Clock::time_point origin_;
  double origin_unix_us_ = 0;  // the origin on the Unix clock, for Kineto's timestamps
  AllocatorSnapshot memory_at_start_;
  StepRecord current_;
  bool phase_open_ = false;
  std::vector<StepRecord> steps_;
  std::vector<DeviceEvent> kernels_;  // Unix-clock microseconds until build_report()
  ProfileReport report_;
};

}  // namespace libreyolo::core::profiler

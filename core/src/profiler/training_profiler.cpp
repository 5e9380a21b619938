#include "libreyolo/core/profiler/training_profiler.hpp"

#include <algorithm>
#include <exception>

#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/profiler/communication_overlap.hpp"
#include "libreyolo/core/profiler/profile_artifacts.hpp"
#include "libreyolo/core/profiler/report_text.hpp"
#include "libreyolo/core/profiler/window_measures.hpp"

namespace libreyolo::core::profiler {
namespace {

constexpr double kBytesPerGB = 1024.0 * 1024.0 * 1024.0;

double unix_now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Kernel start times onto the window's origin. Kineto reports the Unix clock; should a build
// report another clock (most kernels would then land far outside the window), the timeline is
// shifted so that its first kernel starts at the origin, and the report says "realigned".
std::string map_kernels_to_window(std::vector<DeviceEvent>& kernels, double origin_unix_us, double window_end_us) {
  if (kernels.empty()) return "unix";
  std::size_t plausible = 0;
  for (const auto& k : kernels) {
    const double t = k.start_us - origin_unix_us;
    if (t > -1e6 && t < window_end_us + 1e6) ++plausible;
  }
  double shift = origin_unix_us;
  std::string clock = "unix";
  if (plausible * 2 < kernels.size()) {
    shift = std::min_element(kernels.begin(), kernels.end(), [](const DeviceEvent& a, const DeviceEvent& b) {
              return a.start_us < b.start_us;
            })->start_us;
    clock = "realigned";
  }
  for (auto& k : kernels) k.start_us -= shift;
  return clock;
}

}  // namespace

TrainingProfiler::TrainingProfiler(ProfilerSettings settings, std::unique_ptr<DeviceProbe> probe)
    : settings_(std::move(settings)), probe_(std::move(probe)) {
  settings_.steps = std::max(1, settings_.steps);
  settings_.skip = std::max(0, settings_.skip);
  first_half_ = (settings_.steps + 1) / 2;
  log::info("profile=true: measuring steps ", settings_.skip + 1, " to ", settings_.skip + settings_.steps, " (",
            first_half_, " unsynchronised, ", settings_.steps - first_half_, " synchronised per phase); report and "
            "artifacts in ", settings_.output_dir.string());
}

TrainingProfiler::~TrainingProfiler() {
  if (recording_) {
    try {
      probe_->stop_kernel_recording();  // never leave Kineto enabled behind us
    } catch (...) {
    }
  }
}

double TrainingProfiler::ms_since_origin(Clock::time_point t) const {
  return std::chrono::duration<double, std::milli>(t - origin_).count();
}

void TrainingProfiler::begin_window() {
  window_started_ = true;
  memory_at_start_ = probe_->allocator();
  if (probe_->accelerator()) {
    try {
      probe_->start_kernel_recording();
      recording_ = true;
    } catch (const std::exception& e) {
      recording_failed_ = true;
      log::warn("profile: cannot record the GPU's kernels (", e.what(), "); the report has no utilization or verdict");
    }
  }
  // The origin after the recorder started: enabling Kineto is not part of any step.
  origin_ = Clock::now();
  origin_unix_us_ = unix_now_us();
}

void TrainingProfiler::step_begins() {
  in_step_ = false;  // a step begun but never ended (the epoch ran out of batches) is dropped
  phase_open_ = false;
  if (finished_ || ended_steps_ < settings_.skip) return;
  const int index = static_cast<int>(steps_.size());
  const bool synchronized = index >= first_half_;
  if (!window_started_) begin_window();
  if (synchronized) probe_->synchronize();
  current_ = StepRecord{};
  current_.index = index;
  current_.synchronized = synchronized;
  current_.start_ms = ms_since_origin(Clock::now());
  in_step_ = true;
}

void TrainingProfiler::close_phase(double now_ms) {
  if (!phase_open_) return;
  auto& span = current_.phases.back();
  span.duration_ms = now_ms - span.start_ms;
  phase_open_ = false;
}

void TrainingProfiler::phase_begins(StepPhase phase) {
  if (!in_step_) return;
  if (current_.synchronized) probe_->synchronize();  // the previous phase's GPU work belongs to it
  const double now = ms_since_origin(Clock::now());
  close_phase(now);
  current_.phases.push_back({phase, now, 0});
  phase_open_ = true;
}

void TrainingProfiler::step_ends() {
  if (!in_step_) {
    if (!finished_) ++ended_steps_;
    return;
  }
  if (current_.synchronized) probe_->synchronize();
  const double now = ms_since_origin(Clock::now());
  close_phase(now);
  current_.wall_ms = now - current_.start_ms;
  steps_.push_back(std::move(current_));
  in_step_ = false;
  ++ended_steps_;
  if (static_cast<int>(steps_.size()) == first_half_ && recording_) {
    // Stop after the half's last step: the sync lets the recorder see every queued kernel.
    probe_->synchronize();
    kernels_ = probe_->stop_kernel_recording();
    recording_ = false;
  }
  if (static_cast<int>(steps_.size()) == settings_.steps) finish();
}

ProfileReport TrainingProfiler::build_report() {
  ProfileReport r;
  r.config = settings_.config;
  r.environment = settings_.environment;
  r.skip = settings_.skip;
  r.first_half = first_half_;
  r.steps = steps_;
  double first_half_end_us = 0;
  for (const auto& step : steps_) {
    if (!step.synchronized) first_half_end_us = std::max(first_half_end_us, (step.start_ms + step.wall_ms) * 1000.0);
  }
  const bool kernels_recorded = probe_->accelerator() && !recording_failed_;
  r.kernel_clock = map_kernels_to_window(kernels_, origin_unix_us_, first_half_end_us);
  r.measures = measure_window(steps_, kernels_, probe_->accelerator(), kernels_recorded);

  const auto memory = probe_->allocator();
  if (memory.available) {
    r.measures.alloc_retries = memory.alloc_retries - memory_at_start_.alloc_retries;
    r.reserved_gb = static_cast<double>(memory.reserved_bytes) / kBytesPerGB;
    r.device_total_gb = static_cast<double>(memory.device_total_bytes) / kBytesPerGB;
    if (memory.device_total_bytes > 0) {
      r.measures.reserved_fraction =
          static_cast<double>(memory.reserved_bytes) / static_cast<double>(memory.device_total_bytes);
    }
  }
  r.verdict = decide_verdict(r.measures);
  const auto summary = summarize(kernels_);
  r.kernel_events = summary.events;
  r.kernel_busy_us = busy_within_steps_us(steps_, kernels_);
  record_communication(r, communication_overlap(steps_, kernels_));
  r.kernels = summary.by_name;
  r.kernel_timeline = std::move(kernels_);
  kernels_.clear();
  return r;
}

void TrainingProfiler::finish() {
  finished_ = true;
  report_ = build_report();
  std::string written;
  try {
    write_profile_artifacts(report_, settings_.output_dir);
    written = "artifacts: " + settings_.output_dir.string() + "/{timeline.html, profile_trace.json, "
              "profile_summary.json, profile.json}";
  } catch (const std::exception& e) {
    written = std::string("artifacts NOT written: ") + e.what();
  }
  log::info(format_report(report_), written);
  // The timeline went into the artifacts; training goes on without holding it.
  report_.kernel_timeline.clear();
  report_.kernel_timeline.shrink_to_fit();
}

void TrainingProfiler::run_ended() {
  if (finished_) return;
  const int needed = settings_.skip + settings_.steps;
  log::warn("profile=true: the run ended after ", ended_steps_, " steps, before the profiler's window of ", needed,
            " (profile_skip=", settings_.skip, " + profile_steps=", settings_.steps,
            ") was filled: no report. Train more epochs or lower profile_skip / profile_steps");
  finished_ = true;
}

}  // namespace libreyolo::core::profiler

// The TrainingProfiler's window on a scripted device: which steps it skips and measures, where
// it synchronises (never in the first half, at every phase boundary in the second), when it
// records kernels, that abandoned steps are dropped, and that it writes the four artifacts.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "libreyolo/core/profiler/profile_json.hpp"
#include "libreyolo/core/profiler/report_text.hpp"
#include "libreyolo/core/profiler/training_profiler.hpp"
#include "libreyolo/core/util/remove_tree.hpp"

using namespace libreyolo::core::profiler;
namespace fs = std::filesystem;

namespace {

// A device whose kernels run exactly while the host is inside a phase (its clock is the Unix
// clock, as Kineto's) and that counts the profiler's calls.
struct ScriptedDevice {
  bool accelerator = true;
  int syncs = 0, starts = 0, stops = 0;
  std::int64_t retries = 0;
  std::vector<DeviceEvent> kernels;
};

class ScriptedProbe final : public DeviceProbe {
 public:
  explicit ScriptedProbe(ScriptedDevice& device) : d_(device) {}
  bool accelerator() const override { return d_.accelerator; }
  std::string description() const override { return d_.accelerator ? "scripted gpu" : "cpu"; }
  void synchronize() override { ++d_.syncs; }
  void start_kernel_recording() override {
    ++d_.starts;
    d_.kernels.clear();  // a recorder sees only what runs after it starts
  }
  std::vector<DeviceEvent> stop_kernel_recording() override {
    ++d_.stops;
    return d_.kernels;
  }
  AllocatorSnapshot allocator() const override {
    if (!d_.accelerator) return {};
    return {true, d_.retries, 4LL << 30, 16LL << 30};
  }

 private:
  ScriptedDevice& d_;
};

double unix_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One training step as the trainer marks it; the device runs a 1 ms kernel during forward (and,
// with `all_reduce`, a 2 ms NCCL kernel from its middle on: half of it beside the forward kernel).
void run_step(TrainingProfiler& p, ScriptedDevice& d, bool abandon = false, bool all_reduce = false) {
  p.step_begins();
  p.phase_begins(StepPhase::data_wait);
  if (abandon) return;  // the loader had no batch left
  for (const auto phase : {StepPhase::h2d, StepPhase::forward, StepPhase::loss, StepPhase::backward,
                           StepPhase::optimizer, StepPhase::ema, StepPhase::other}) {
    p.phase_begins(phase);
    if (phase == StepPhase::forward) {
      const double now = unix_us();
      d.kernels.push_back({"forward_kernel", now, 1000});
      if (all_reduce) d.kernels.push_back({"ncclDevKernel_AllReduce_Sum_f32_RING_LL", now + 500, 1000});
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  p.step_ends();
}

ProfilerSettings settings(const std::string& folder, int skip, int steps) {
  ProfilerSettings s;
  s.skip = skip;
  s.steps = steps;
  s.output_dir = fs::temp_directory_path() / "libreyolo_profiler_tests" / folder;
  std::error_code error;
  libreyolo::core::util::remove_tree(s.output_dir, error);  // not fs::remove_all: see remove_tree.hpp
  s.config = {{"model", "scripted"}};
  return s;
}

}  // namespace

TEST_CASE("the profiler skips, measures two halves, syncs only in the second, then reports") {
  ScriptedDevice device;
  TrainingProfiler profiler(settings("gpu", 2, 4), std::make_unique<ScriptedProbe>(device));
  run_step(profiler, device);
  run_step(profiler, device);
  CHECK(device.starts == 0);  // still skipping
  run_step(profiler, device, /*abandon=*/true);  // an epoch's end inside the window: dropped
  run_step(profiler, device);
  CHECK(device.starts == 1);
  run_step(profiler, device);
  CHECK(device.syncs == 1);  // only the one before stopping the recorder
  CHECK(device.stops == 1);
  CHECK_FALSE(profiler.finished());
  run_step(profiler, device);
  // A synchronised step: one sync at its start, one per phase mark (8), one at its end.
  CHECK(device.syncs == 1 + 10);
  run_step(profiler, device);
  CHECK(profiler.finished());
  CHECK(device.syncs == 1 + 20);

  const auto& report = profiler.report();
  REQUIRE(report.steps.size() == 4);
  CHECK_FALSE(report.steps[0].synchronized);
  CHECK_FALSE(report.steps[1].synchronized);
  CHECK(report.steps[2].synchronized);
  CHECK(report.steps[0].phases.size() == 8);
  CHECK(report.steps[0].phases.front().phase == StepPhase::data_wait);
  CHECK(report.kernel_clock == "unix");
  CHECK(report.kernel_events == 2);  // the kernels of the unsynchronised half (the recorder's)
  CHECK(report.measures.kernels_recorded);
  CHECK(report.measures.utilization > 0.05);
  CHECK(report.measures.utilization < 1.0);
  CHECK(report.measures.reserved_fraction == doctest::Approx(0.25));
  CHECK(report.verdict.kind != VerdictKind::none);

  const auto folder = fs::temp_directory_path() / "libreyolo_profiler_tests" / "gpu";
  for (const char* name : {"timeline.html", "profile_trace.json", "profile_summary.json", "profile.json"}) {
    CAPTURE(name);
    CHECK(fs::file_size(folder / name) > 100);
  }
  CHECK(read_profile_json(folder / "profile.json").steps.size() == 4);
  // After the report, the profiler ignores any further marks.
  run_step(profiler, device);
  CHECK(device.syncs == 1 + 20);
}

TEST_CASE("on a CPU the profiler times phases and gives no verdict") {
  ScriptedDevice device;
  device.accelerator = false;
  TrainingProfiler profiler(settings("cpu", 0, 3), std::make_unique<ScriptedProbe>(device));
  for (int i = 0; i < 3; ++i) run_step(profiler, device);
  REQUIRE(profiler.finished());
  CHECK(device.starts == 0);
  const auto& report = profiler.report();
  CHECK(report.first_half == 2);  // an odd window gives the unsynchronised half the extra step
  CHECK(report.verdict.kind == VerdictKind::none);
  CHECK(report.measures.step_wall_ms >= 2.0);
  CHECK(report.device_total_gb < 0);
}

TEST_CASE("a distributed step's NCCL kernels are reported with the share that ran beside the others") {
  ScriptedDevice device;
  TrainingProfiler profiler(settings("nccl", 0, 4), std::make_unique<ScriptedProbe>(device));
  for (int i = 0; i < 4; ++i) run_step(profiler, device, false, /*all_reduce=*/true);
  REQUIRE(profiler.finished());
  const auto& report = profiler.report();
  CHECK(report.communication_kernels_per_step == doctest::Approx(1));
  CHECK(report.communication_ms_per_step == doctest::Approx(1.0).epsilon(0.01));
  CHECK(report.communication_overlapped_ms_per_step == doctest::Approx(0.5).epsilon(0.01));
  CHECK(format_report(report).find("50.0% of it beside other kernels") != std::string::npos);
}

TEST_CASE("allocator retries during the window count, earlier ones do not") {
  ScriptedDevice device;
  device.retries = 7;  // before the window
  TrainingProfiler profiler(settings("retries", 1, 2), std::make_unique<ScriptedProbe>(device));
  run_step(profiler, device);
  run_step(profiler, device);
  device.retries = 9;
  run_step(profiler, device);
  REQUIRE(profiler.finished());
  CHECK(profiler.report().measures.alloc_retries == 2);
  CHECK(profiler.report().verdict.kind == VerdictKind::memory_pressure);
}

TEST_CASE("a run that ends before the window is full says so and stops observing") {
  ScriptedDevice device;
  TrainingProfiler profiler(settings("short", 5, 20), std::make_unique<ScriptedProbe>(device));
  run_step(profiler, device);
  CHECK_FALSE(profiler.finished());
  profiler.run_ended();
  CHECK(profiler.finished());
  CHECK_FALSE(fs::exists(fs::temp_directory_path() / "libreyolo_profiler_tests" / "short" / "profile.json"));
}

// The verdict rules (verdict.hpp, docs/training-performance.md) on synthetic windows: one per
// verdict, the thresholds' edges, and the measurements that feed them.
#include <doctest/doctest.h>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/profiler/verdict.hpp"
#include "libreyolo/core/profiler/window_measures.hpp"
#include "synthetic_window.hpp"

using namespace libreyolo::core::profiler;
using libreyolo::test::make_kernels;
using libreyolo::test::make_steps;

namespace {

Verdict verdict_of(const std::vector<StepRecord>& steps, const std::vector<DeviceEvent>& kernels,
                   std::int64_t retries = 0, double reserved = 0.5) {
  auto measures = measure_window(steps, kernels, true, true);
  measures.alloc_retries = retries;
  measures.reserved_fraction = reserved;
  return decide_verdict(measures);
}

}  // namespace

TEST_CASE("a GPU idle while the host waits for batches is dataloader-bound") {
  // 100 ms steps: 60 ms waiting for the loader, then 25 ms of kernels.
  const auto steps = make_steps(10, {60, 40}, 10);
  const auto kernels = make_kernels(steps, 50, 500, 60);
  const auto m = measure_window(steps, kernels, true, true);
  CHECK(m.steps == 10);
  CHECK(m.step_wall_ms == doctest::Approx(100));
  CHECK(m.utilization == doctest::Approx(0.25));
  CHECK(m.data_wait_share == doctest::Approx(0.6));
  const auto v = decide_verdict(m);
  CHECK(v.kind == VerdictKind::dataloader);
  CHECK(v.levers == verdict_levers(VerdictKind::dataloader));
  CHECK(v.reason.find("25.0%") != std::string::npos);  // the numbers that decided it
  CHECK(v.reason.find("60.0%") != std::string::npos);
}

TEST_CASE("many tiny kernels with no data wait are host / launch-bound") {
  // 20 ms steps, 0.2 ms of data wait, 400 kernels of 15 us: the GPU is busy 30% of the time.
  const auto steps = make_steps(10, {0.2, 19.8});
  const auto kernels = make_kernels(steps, 400, 15, 0.5);
  const auto m = measure_window(steps, kernels, true, true);
  CHECK(m.utilization == doctest::Approx(0.3));
  CHECK(m.kernels_per_step == doctest::Approx(400));
  CHECK(m.mean_kernel_us == doctest::Approx(15));
  const auto v = decide_verdict(m);
  CHECK(v.kind == VerdictKind::host_launch);
  CHECK(std::string(verdict_name(v.kind)) == "host / launch");
  CHECK(v.reason.find("400 kernels per step") != std::string::npos);
  CHECK(v.utilization_trusted);
}

TEST_CASE("a GPU busy almost all the step is compute-bound") {
  const auto steps = make_steps(10, {1, 49});
  const auto kernels = make_kernels(steps, 90, 500, 2);  // 45 ms of 50
  const auto v = verdict_of(steps, kernels);
  CHECK(v.kind == VerdictKind::compute);
  CHECK(v.reason.find("90.0%") != std::string::npos);
}

TEST_CASE("allocator retries or a full device mean memory-pressure, and utilization is not trusted") {
  const auto steps = make_steps(10, {1, 49});
  const auto kernels = make_kernels(steps, 90, 500, 2);
  const auto retried = verdict_of(steps, kernels, 3, 0.6);
  CHECK(retried.kind == VerdictKind::memory_pressure);
  CHECK_FALSE(retried.utilization_trusted);
  CHECK(retried.reason.find("retried 3 allocations") != std::string::npos);
  CHECK(retried.levers.front() == "lower batch");
  const auto full = verdict_of(steps, kernels, 0, 0.98);
  CHECK(full.kind == VerdictKind::memory_pressure);
  CHECK(full.reason.find("98.0%") != std::string::npos);
  // Memory pressure wins over the other rules: a starved loader under retries is still reported as memory.
  const auto starved = make_steps(10, {60, 40});
  CHECK(verdict_of(starved, make_kernels(starved, 50, 500, 60), 1).kind == VerdictKind::memory_pressure);
}

TEST_CASE("the thresholds' edges") {
  WindowMeasures m;
  m.accelerator = m.kernels_recorded = true;
  m.reserved_fraction = 0.5;
  m.utilization = VerdictThresholds::compute_utilization;
  CHECK(decide_verdict(m).kind == VerdictKind::compute);
  m.utilization = VerdictThresholds::compute_utilization - 0.01;
  m.data_wait_share = 0.5 * (1 - m.utilization) - 0.001;  // just under half of the idle time
  CHECK(decide_verdict(m).kind == VerdictKind::host_launch);
  m.data_wait_share = 0.5 * (1 - m.utilization) + 0.001;
  CHECK(decide_verdict(m).kind == VerdictKind::dataloader);
  // A nearly saturated GPU: half its idle time is tiny, but a wait under 5% is noise.
  m.utilization = 0.79;
  m.data_wait_share = 0.049;
  CHECK(decide_verdict(m).kind == VerdictKind::host_launch);
  m.reserved_fraction = VerdictThresholds::memory_edge_reserved;
  CHECK(decide_verdict(m).kind == VerdictKind::memory_pressure);
}

TEST_CASE("no accelerator, or no kernel timeline: no verdict, but the phase numbers stay") {
  const auto steps = make_steps(4, {2, 8}, 4);
  const auto cpu = measure_window(steps, {}, false, false);
  CHECK(cpu.step_wall_ms == doctest::Approx(10));
  CHECK(cpu.data_wait_share == doctest::Approx(0.2));
  const auto v = decide_verdict(cpu);
  CHECK(v.kind == VerdictKind::none);
  CHECK(v.reason.find("no accelerator") != std::string::npos);
  CHECK(v.levers.empty());
  const auto blind = decide_verdict(measure_window(steps, {}, true, false));
  CHECK(blind.kind == VerdictKind::none);
  CHECK(blind.reason.find("could not be recorded") != std::string::npos);
}

TEST_CASE("utilization counts kernels inside the unsynchronised steps only") {
  auto steps = make_steps(4, {0, 10});
  // Validation between two epochs: a gap after step 1, with the GPU busy in it.
  for (std::size_t i = 2; i < steps.size(); ++i) {
    steps[i].start_ms += 100;
    for (auto& p : steps[i].phases) p.start_ms += 100;
  }
  auto kernels = make_kernels(steps, 5, 1000, 0);  // 5 ms of each 10 ms step
  kernels.push_back({"validation", 25 * 1000.0, 50 * 1000.0});
  // A kernel straddling a step's end counts only inside it.
  kernels.push_back({"tail", 9.5 * 1000.0 + 100 * 1000.0 + 20 * 1000.0, 1000});
  const auto m = measure_window(steps, kernels, true, true);
  CHECK(m.step_wall_ms == doctest::Approx(10));
  CHECK(m.utilization == doctest::Approx((20.0 + 0.5) / 40.0));
  CHECK(m.kernels_per_step == doctest::Approx(21.0 / 4));  // the validation kernel started outside
}

TEST_CASE("verdict names read back") {
  for (const auto kind : {VerdictKind::none, VerdictKind::dataloader, VerdictKind::host_launch, VerdictKind::compute,
                          VerdictKind::memory_pressure}) {
    CHECK(parse_verdict_name(verdict_name(kind)) == kind);
  }
  CHECK_THROWS_AS(parse_verdict_name("gpu"), libreyolo::core::Error);
}

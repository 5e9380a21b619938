#include <doctest/doctest.h>

#include "libreyolo/core/trainer/host_phase_clock.hpp"

using libreyolo::core::trainer::HostPhaseClock;

TEST_CASE("bench's phase clock: host time per phase, GPU idle charged to the phase the GPU resumed in") {
  HostPhaseClock clock;
  // Two steps of 100 us: start 0-10, forward 10-40, loss 40-90, synchronize 90-100.
  for (const double t0 : {0.0, 1000.0}) {
    clock.record("start", t0);
    clock.record("forward", t0 + 10);
    clock.record("loss", t0 + 40);
    clock.record("synchronize", t0 + 90);
    clock.record("", t0 + 100);
  }
  // GPU: busy 12-50, idle until 60 (resumes in loss), busy 60-95; next step busy 1005-1085,
  // so the 910 us between the steps ends in the second step's start phase.
  const auto phases = clock.attribute({{"a", 12, 38}, {"b", 60, 35}, {"c", 1005, 80}});
  REQUIRE(phases.size() == 4);
  CHECK(phases[0].phase == "start");
  CHECK(phases[0].host_ms == doctest::Approx(0.010));
  CHECK(phases[0].gpu_idle_ms == doctest::Approx(0.910 / 2));
  CHECK(phases[1].phase == "forward");
  CHECK(phases[1].host_ms == doctest::Approx(0.030));
  CHECK(phases[1].gpu_idle_ms == 0);
  CHECK(phases[2].phase == "loss");
  CHECK(phases[2].host_ms == doctest::Approx(0.050));
  CHECK(phases[2].gpu_idle_ms == doctest::Approx(0.010 / 2));
  CHECK(phases[3].phase == "synchronize");
  CHECK(phases[3].host_ms == doctest::Approx(0.010));
}

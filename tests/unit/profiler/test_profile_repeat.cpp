// profile run --repeat N: mean, sample standard deviation and verdict counts over N windows;
// and the kernel lanes the trace and timeline draw.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "libreyolo/core/profiler/kernel_lanes.hpp"
#include "libreyolo/core/profiler/profile_repeat.hpp"

using namespace libreyolo::core::profiler;

namespace {

ProfileReport run_with(double step_ms, double utilization, VerdictKind verdict) {
  ProfileReport r;
  r.measures.accelerator = r.measures.kernels_recorded = true;
  r.measures.step_wall_ms = step_ms;
  r.measures.utilization = utilization;
  r.verdict.kind = verdict;
  return r;
}

}  // namespace

TEST_CASE("mean and sample standard deviation") {
  const auto one = mean_and_std({4.0});
  CHECK(one.mean == doctest::Approx(4));
  CHECK(one.std == 0);
  const auto many = mean_and_std({2, 4, 4, 4, 5, 5, 7, 9});
  CHECK(many.mean == doctest::Approx(5));
  CHECK(many.std == doctest::Approx(2.13809).epsilon(1e-5));  // sqrt(32 / 7)
}

TEST_CASE("repeated windows summarise step time, utilization and verdicts") {
  const std::vector<ProfileReport> runs = {run_with(10, 0.4, VerdictKind::host_launch),
                                           run_with(12, 0.5, VerdictKind::host_launch),
                                           run_with(14, 0.9, VerdictKind::compute)};
  const auto summary = summarize_repeats(runs, {"prof_1", "prof_2", "prof_3"});
  CHECK(summary.step_ms.mean == doctest::Approx(12));
  CHECK(summary.step_ms.std == doctest::Approx(2));
  CHECK(summary.utilization.mean == doctest::Approx(0.6));
  CHECK(summary.utilization_runs == 3);
  REQUIRE(summary.verdict_counts.size() == 2);
  CHECK(summary.verdict_counts[0] == std::make_pair(std::string("host / launch"), 2));
  CHECK(summary.verdict_counts[1] == std::make_pair(std::string("compute"), 1));

  std::ostringstream text;
  write_profile_repeat_json(text, summary);
  const auto json = YAML::Load(text.str());
  CHECK(json["runs"].as<int>() == 3);
  CHECK(json["step_ms"]["std"].as<double>() == doctest::Approx(2));
  CHECK(json["verdict_counts"]["host / launch"].as<int>() == 2);
  CHECK(json["folders"][2].as<std::string>() == "prof_3");
  CHECK(format_repeat_summary(summary).find("host / launch x2 compute x1") != std::string::npos);
}

TEST_CASE("overlapping kernels get separate lanes; merged blocks bridge small gaps") {
  const std::vector<DeviceEvent> events = {{"a", 0, 10}, {"b", 5, 10}, {"c", 12, 2}, {"d", 20, 1}, {"e", 6, 1}};
  CHECK(assign_lanes(events) == std::vector<int>{0, 1, 0, 0, 2});
  std::vector<int> counts;
  const auto blocks = merge_into_blocks(events, 5, counts);
  REQUIRE(blocks.size() == 1);  // the gap 15 -> 20 is within 5 us
  CHECK(blocks[0].duration_us == doctest::Approx(21));
  CHECK(counts == std::vector<int>{5});
  CHECK(merge_into_blocks(events, 1, counts).size() == 2);
}

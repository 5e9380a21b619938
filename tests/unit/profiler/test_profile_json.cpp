// profile.json round trip (what `profile summary|phases|kernels` read), the summary and the
// Chrome trace parse as JSON with what they promise (the writer itself: tests/unit/util/).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/profiler/chrome_trace.hpp"
#include "libreyolo/core/profiler/profile_json.hpp"
#include "libreyolo/core/profiler/report_text.hpp"
#include "sample_report.hpp"

using namespace libreyolo::core::profiler;
namespace fs = std::filesystem;

namespace {

fs::path temp_file(const std::string& name) {
  const auto folder = fs::temp_directory_path() / "libreyolo_profiler_tests";
  fs::create_directories(folder);
  return folder / name;
}

fs::path write_to(const std::string& name, const ProfileReport& report) {
  const auto file = temp_file(name);
  std::ofstream out(file);
  write_profile_json(out, report);
  return file;
}

}  // namespace

TEST_CASE("profile.json reads back into the same report") {
  const auto original = libreyolo::test::sample_report();
  REQUIRE(original.verdict.kind == VerdictKind::host_launch);
  const auto back = read_profile_json(write_to("roundtrip.json", original));
  CHECK(back.config == original.config);
  CHECK(back.environment == original.environment);
  CHECK(back.skip == 5);
  CHECK(back.first_half == 3);
  CHECK(back.verdict.kind == original.verdict.kind);
  CHECK(back.verdict.reason == original.verdict.reason);
  CHECK(back.verdict.levers == original.verdict.levers);
  CHECK(back.verdict.utilization_trusted == original.verdict.utilization_trusted);
  CHECK(back.measures.accelerator);
  CHECK(back.measures.kernels_recorded);
  CHECK(back.measures.steps == original.measures.steps);
  CHECK(back.measures.utilization == doctest::Approx(original.measures.utilization).epsilon(1e-6));
  CHECK(back.measures.data_wait_share == doctest::Approx(original.measures.data_wait_share).epsilon(1e-6));
  CHECK(back.measures.kernels_per_step == doctest::Approx(original.measures.kernels_per_step).epsilon(1e-5));
  CHECK(back.measures.reserved_fraction == doctest::Approx(0.25));
  CHECK(back.reserved_gb == doctest::Approx(34.5));
  CHECK(back.device_total_gb == doctest::Approx(138.0));
  CHECK(back.kernel_events == original.kernel_events);
  CHECK(back.kernel_busy_us == doctest::Approx(original.kernel_busy_us).epsilon(1e-6));
  CHECK(back.kernel_clock == "unix");
  REQUIRE(back.kernels.size() == original.kernels.size());
  for (std::size_t i = 0; i < back.kernels.size(); ++i) {
    CHECK(back.kernels[i].name == original.kernels[i].name);
    CHECK(back.kernels[i].count == original.kernels[i].count);
    CHECK(back.kernels[i].total_us == doctest::Approx(original.kernels[i].total_us));
  }
  REQUIRE(back.steps.size() == original.steps.size());
  for (std::size_t i = 0; i < back.steps.size(); ++i) {
    CHECK(back.steps[i].synchronized == original.steps[i].synchronized);
    CHECK(back.steps[i].wall_ms == doctest::Approx(original.steps[i].wall_ms));
    REQUIRE(back.steps[i].phases.size() == original.steps[i].phases.size());
    for (std::size_t p = 0; p < back.steps[i].phases.size(); ++p) {
      CHECK(back.steps[i].phases[p].phase == original.steps[i].phases[p].phase);
      CHECK(back.steps[i].phases[p].duration_ms == doctest::Approx(original.steps[i].phases[p].duration_ms));
    }
  }
  // The subcommands print the same text from the file as from the live report.
  CHECK(format_summary(back) == format_summary(original));
  CHECK(format_phases(back) == format_phases(original));
  CHECK(format_kernels(back, 3) == format_kernels(original, 3));
}

TEST_CASE("a distributed profile's NCCL numbers read back and print one line; others have none") {
  auto distributed = libreyolo::test::sample_report();
  CHECK(format_summary(distributed).find("NCCL") == std::string::npos);
  std::ostringstream single;
  write_profile_summary_json(single, distributed);
  CHECK_FALSE(YAML::Load(single.str())["communication"]);

  distributed.communication_kernels_per_step = 12;
  distributed.communication_ms_per_step = 4.0;
  distributed.communication_overlapped_ms_per_step = 3.0;
  const auto back = read_profile_json(write_to("distributed.json", distributed));
  CHECK(back.communication_kernels_per_step == doctest::Approx(12));
  CHECK(back.communication_ms_per_step == doctest::Approx(4.0));
  CHECK(back.communication_overlapped_ms_per_step == doctest::Approx(3.0));
  const auto text = format_summary(back);
  CHECK(text == format_summary(distributed));
  CHECK(text.find("NCCL        4.00 ms a step on the GPU (12 kernels") != std::string::npos);
  CHECK(text.find("75.0% of it beside other kernels, 1.00 ms exposed") != std::string::npos);
  std::ostringstream summary;
  write_profile_summary_json(summary, distributed);
  CHECK(YAML::Load(summary.str())["communication"]["overlapped_ms_per_step"].as<double>() == doctest::Approx(3.0));
}

TEST_CASE("a CPU profile reads back with no verdict") {
  ProfileReport cpu;
  cpu.skip = 1;
  cpu.first_half = 2;
  cpu.steps = libreyolo::test::make_steps(2, {3, 7}, 2);
  cpu.measures = measure_window(cpu.steps, {}, false, false);
  cpu.verdict = decide_verdict(cpu.measures);
  const auto back = read_profile_json(write_to("cpu.json", cpu));
  CHECK(back.verdict.kind == VerdictKind::none);
  CHECK_FALSE(back.measures.accelerator);
  CHECK(back.device_total_gb < 0);
  CHECK(format_summary(back).find("verdict: none: no accelerator") != std::string::npos);
  CHECK(format_kernels(back, 5) == "kernels: none (no accelerator)\n");
}

TEST_CASE("reading something that is not a profile says what it is") {
  CHECK_THROWS_WITH_AS(read_profile_json(temp_file("missing.json")), doctest::Contains("no profile at"),
                       libreyolo::core::Error);
  const auto summary_file = temp_file("summary.json");
  {
    std::ofstream out(summary_file);
    write_profile_summary_json(out, libreyolo::test::sample_report());
  }
  CHECK_THROWS_WITH_AS(read_profile_json(summary_file), doctest::Contains("is not a profile"), libreyolo::core::Error);
  const auto garbage = temp_file("garbage.json");
  std::ofstream(garbage) << "{\"format\": \"libreyolo-profile\", \"version\": 1, [";
  CHECK_THROWS_AS(read_profile_json(garbage), libreyolo::core::Error);
}

TEST_CASE("profile_summary.json carries the verdict and the deciding numbers") {
  std::ostringstream text;
  write_profile_summary_json(text, libreyolo::test::sample_report());
  const auto summary = YAML::Load(text.str());
  CHECK(summary["verdict"]["name"].as<std::string>() == "host / launch");
  CHECK(summary["verdict"]["levers"].size() == 3);
  CHECK(summary["measures"]["utilization"].as<double>() > 0);
  CHECK(summary["kernels"]["by_name"].size() <= 10);
}

TEST_CASE("the Chrome trace has one event per recorded kernel plus the steps and phases") {
  const auto report = libreyolo::test::sample_report();
  std::ostringstream text;
  write_chrome_trace(text, report);
  const auto trace = YAML::Load(text.str());
  std::size_t kernels = 0, steps = 0, phases = 0;
  for (const auto& event : trace["traceEvents"]) {
    const auto ph = event["ph"].as<std::string>();
    if (ph == "M") continue;
    CHECK(ph == "X");
    const auto category = event["cat"].as<std::string>();
    kernels += category == "kernel";
    steps += category == "step";
    phases += category == "phase";
  }
  CHECK(kernels == report.kernel_timeline.size());
  CHECK(steps == report.steps.size());
  std::size_t expected_phases = 0;
  for (const auto& step : report.steps) expected_phases += step.phases.size();
  CHECK(phases == expected_phases);
  CHECK(trace["otherData"]["verdict"].as<std::string>() == "host / launch");
}

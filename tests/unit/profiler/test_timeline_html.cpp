// timeline.html is one self-contained page: no external resources, the data embedded so that no
// kernel name can break out of its <script> element, and past the drawing cap merged blocks.
// (That it renders without errors is checked in headless Chromium: tests/integration.)
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "libreyolo/core/profiler/timeline_html.hpp"
#include "sample_report.hpp"

using namespace libreyolo::core::profiler;

namespace {

std::string page_of(const ProfileReport& report) {
  std::ostringstream out;
  write_timeline_html(out, report);
  return out.str();
}

// The JSON inside <script id="profile-data">.
YAML::Node embedded_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"profile-data\">";
  const auto begin = page.find(open);
  REQUIRE(begin != std::string::npos);
  const auto end = page.find("</script>", begin);
  REQUIRE(end != std::string::npos);
  return YAML::Load(page.substr(begin + open.size(), end - begin - open.size()));
}

}  // namespace

TEST_CASE("timeline.html is self-contained and embeds the report") {
  const auto report = libreyolo::test::sample_report();
  const auto page = page_of(report);
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  // Nothing is fetched: the only URL is the SVG namespace name, which is an identifier.
  auto offline = page;
  const std::string svg_namespace = "http://www.w3.org/2000/svg";
  for (auto at = offline.find(svg_namespace); at != std::string::npos; at = offline.find(svg_namespace)) {
    offline.erase(at, svg_namespace.size());
  }
  for (const char* external : {"http://", "https://", "<link", "src=", "@import", "url("}) {
    CAPTURE(external);
    CHECK(offline.find(external) == std::string::npos);
  }
  // The hostile kernel name stays inside its JSON string: exactly the two real </script> tags.
  std::size_t closes = 0;
  for (auto at = page.find("</script>"); at != std::string::npos; at = page.find("</script>", at + 1)) ++closes;
  CHECK(closes == 2);
  const auto data = embedded_data(page);
  CHECK(data["verdict"]["name"].as<std::string>() == "host / launch");
  CHECK(data["steps"].size() == report.steps.size());
  CHECK_FALSE(data["kernels"]["merged"].as<bool>());
  CHECK(data["kernels"]["rows"].size() == report.kernel_timeline.size());
  bool hostile_name_kept = false;
  for (const auto& name : data["kernels"]["names"]) {
    hostile_name_kept |= name.as<std::string>() == report.kernel_timeline.back().name;
  }
  CHECK(hostile_name_kept);
}

TEST_CASE("past the drawing cap the kernels are drawn as merged busy blocks") {
  auto report = libreyolo::test::sample_report();
  report.kernel_timeline.clear();
  // Two bursts of back-to-back kernels, far apart.
  for (std::size_t i = 0; i < kMaxDrawnKernels + 10; ++i) {
    const double start = (i < kMaxDrawnKernels / 2 ? 0.0 : 1e6) + static_cast<double>(i) * 2.0;
    report.kernel_timeline.push_back({"k", start, 2.0});
  }
  const auto data = embedded_data(page_of(report));
  CHECK(data["kernels"]["merged"].as<bool>());
  CHECK(data["kernels"]["recorded"].as<std::size_t>() == kMaxDrawnKernels + 10);
  REQUIRE(data["kernels"]["rows"].size() == 2);
  CHECK(-data["kernels"]["rows"][0][3].as<int>() == static_cast<int>(kMaxDrawnKernels / 2));
}

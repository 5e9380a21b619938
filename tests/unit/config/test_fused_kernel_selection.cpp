// The fused_kernels option (config/fused_kernel_selection.hpp): each spelling's SDK policy, the
// refusal of a name that is not a kernel's, and what `bench fused` compares with.
#include <doctest/doctest.h>

#include <string>

#include "libreyolo/core/config/fused_kernel_selection.hpp"
#include "libreyolo/core/error.hpp"

using namespace libreyolo::core::config;
namespace sdk = libreyolo::sdk;

TEST_CASE("fused_kernels: off, auto, measured, names and measured+names as the SDK's policy") {
  const auto off = parse_fused_kernels("off");
  CHECK((off.policy == sdk::FusedKernels::off && off.only.empty()));
  const auto every = parse_fused_kernels("auto");
  CHECK((every.policy == sdk::FusedKernels::when_built && every.only.empty()));
  const auto measured = parse_fused_kernels("measured");
  CHECK((measured.policy == sdk::FusedKernels::measured && measured.only.empty()));
  const auto one = parse_fused_kernels("simota_cost");
  CHECK((one.policy == sdk::FusedKernels::when_built && one.only == "simota_cost"));
  const auto two = parse_fused_kernels("simota_cost+simota_selection");
  CHECK((two.policy == sdk::FusedKernels::when_built && two.only == "simota_cost+simota_selection"));
  const auto more = parse_fused_kernels("measured+simota_selection");
  CHECK((more.policy == sdk::FusedKernels::measured && more.only == "simota_selection"));
}

TEST_CASE("fused_kernels: a part that is not a kernel's name is refused with the names there are") {
  for (const std::string bad : {"simota", "measured+", "measured+measured", "simota_cost+off", "+simota_cost", ""}) {
    CAPTURE(bad);
    try {
      parse_fused_kernels(bad);
      FAIL("accepted");
    } catch (const libreyolo::core::Error& e) {
      const std::string text = e.what();
      CHECK(text.find("option fused_kernels=" + bad + " is not valid") != std::string::npos);
      CHECK(text.find("task_aligned_metric") != std::string::npos);  // the list of names
    }
  }
}

TEST_CASE("fused_kernels: measured-names are the measured kernels but those, named one by one") {
  const auto without = parse_fused_kernels("measured-image_convolutions-simota_cost");
  CHECK((without.policy == sdk::FusedKernels::when_built));
  std::string expected;
  for (const auto& name : sdk::measured_faster_kernels())
    if (name != "image_convolutions" && name != "simota_cost") expected += (expected.empty() ? "" : "+") + name;
  CHECK(without.only == expected);
  CHECK(without.only.find("simota_selection") != std::string::npos);
  CHECK(without.only.find("image_convolutions") == std::string::npos);
  std::string all = "measured";
  for (const auto& name : sdk::measured_faster_kernels()) all += "-" + name;
  const auto nothing = parse_fused_kernels(all);
  CHECK((nothing.policy == sdk::FusedKernels::off && nothing.only.empty()));  // not auto
  for (const std::string bad : {"measured-batch_norm_silu", "measured-simota", "measured-"}) {
    CAPTURE(bad);
    try {
      parse_fused_kernels(bad);
      FAIL("accepted");
    } catch (const libreyolo::core::Error& e) {
      CHECK(std::string(e.what()).find("option fused_kernels=" + bad + " is not valid") != std::string::npos);
    }
  }
}

TEST_CASE("fused_kernels: bench fused compares measured+names with measured, everything else with off") {
  CHECK(fused_kernels_baseline("measured+simota_cost") == "measured");
  CHECK(fused_kernels_baseline("measured-simota_cost") == "measured");
  CHECK(fused_kernels_baseline("measured") == "off");
  CHECK(fused_kernels_baseline("simota_cost+simota_selection") == "off");
  CHECK(fused_kernels_baseline("auto") == "off");
}

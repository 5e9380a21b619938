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

TEST_CASE("fused_kernels: bench fused compares measured+names with measured, everything else with off") {
  CHECK(fused_kernels_baseline("measured+simota_cost") == "measured");
  CHECK(fused_kernels_baseline("measured") == "off");
  CHECK(fused_kernels_baseline("simota_cost+simota_selection") == "off");
  CHECK(fused_kernels_baseline("auto") == "off");
}

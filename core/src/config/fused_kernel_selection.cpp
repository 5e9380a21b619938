#include "libreyolo/core/config/fused_kernel_selection.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::config {
namespace {

std::vector<std::string> split_on(const std::string& text, char separator) {
  std::vector<std::string> parts;
  for (std::string::size_type start = 0;;) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

bool is_kernel(const std::string& name) {
  const auto& known = sdk::fused_kernel_names();
  return std::find(known.begin(), known.end(), name) != known.end();
}

[[noreturn]] void refuse(const std::string& text, const std::string& part) {
  std::string names;
  for (const auto& known : sdk::fused_kernel_names()) names += (names.empty() ? "" : ", ") + known;
  throw Error("option fused_kernels=" + text + " is not valid: '" + part + "' is not a fused kernel's name",
              "fused_kernels takes off, auto, measured, a kernel's name, several names joined by +, measured+ "
              "names (the measured kernels and those) or measured- names (the measured kernels but those); the "
              "kernels are " + names,
              "pass e.g. fused_kernels=measured (the default) or fused_kernels=measured+simota_cost");
}

// measured-a-b: the measured kernels but a and b, as the names of the rest (an empty rest is off,
// not auto). Each removed name must be one of the measured kernels.
FusedKernelSelection measured_without(const std::string& text) {
  const auto removed = split_on(text.substr(std::string("measured-").size()), '-');
  const auto& measured = sdk::measured_faster_kernels();
  for (const auto& name : removed)
    if (std::find(measured.begin(), measured.end(), name) == measured.end()) {
      if (!is_kernel(name)) refuse(text, name);
      throw Error("option fused_kernels=" + text + " is not valid: '" + name + "' is not in the measured default",
                  "measured- names take kernels out of the measured default, which does not have it",
                  "pass fused_kernels=measured (it already runs without " + name + ")");
    }
  std::string only;
  for (const auto& name : measured)
    if (std::find(removed.begin(), removed.end(), name) == removed.end()) only += (only.empty() ? "" : "+") + name;
  if (only.empty()) return {sdk::FusedKernels::off, ""};
  return {sdk::FusedKernels::when_built, only};
}

}  // namespace

FusedKernelSelection parse_fused_kernels(const std::string& text) {
  if (text == "off") return {sdk::FusedKernels::off, ""};
  if (text == "auto") return {sdk::FusedKernels::when_built, ""};
  if (text == "measured") return {sdk::FusedKernels::measured, ""};
  if (text.rfind("measured-", 0) == 0) return measured_without(text);
  auto parts = split_on(text, '+');
  const bool with_measured = parts.front() == "measured";
  if (with_measured) parts.erase(parts.begin());
  std::string only;
  for (const auto& part : parts) {
    if (!is_kernel(part)) refuse(text, part);
    only += (only.empty() ? "" : "+") + part;
  }
  return {with_measured ? sdk::FusedKernels::measured : sdk::FusedKernels::when_built, only};
}

std::string fused_kernels_baseline(const std::string& text) {
  return text.rfind("measured+", 0) == 0 || text.rfind("measured-", 0) == 0 ? "measured" : "off";
}

}  // namespace libreyolo::core::config

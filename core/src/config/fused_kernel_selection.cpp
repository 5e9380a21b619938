#include "libreyolo/core/config/fused_kernel_selection.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::config {
namespace {

std::vector<std::string> split_plus(const std::string& text) {
  std::vector<std::string> parts;
  for (std::string::size_type start = 0;;) {
    const auto end = text.find('+', start);
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
              "fused_kernels takes off, auto, measured, a kernel's name, several names joined by +, or measured+ "
              "names (the measured kernels and those); the kernels are " + names,
              "pass e.g. fused_kernels=measured (the default) or fused_kernels=measured+simota_cost");
}

}  // namespace

FusedKernelSelection parse_fused_kernels(const std::string& text) {
  if (text == "off") return {sdk::FusedKernels::off, ""};
  if (text == "auto") return {sdk::FusedKernels::when_built, ""};
  if (text == "measured") return {sdk::FusedKernels::measured, ""};
  auto parts = split_plus(text);
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
  return text.rfind("measured+", 0) == 0 ? "measured" : "off";
}

}  // namespace libreyolo::core::config

// Checks for LibreYOLO options whose text needs more than its type: task (this host trains
// detectors only) and freeze (LibreYOLO's selector syntax, config/freeze_spec.hpp). Each
// refusal says why and what to write instead.

#include <algorithm>
#include <cctype>

#include "libreyolo/core/config/freeze_spec.hpp"
#include "libreyolo/core/error.hpp"
#include "option_checks.hpp"

namespace libreyolo::core::config::checks {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

ValueCheck detect_task_only() {
  return [](const std::string& key, const OptionValue& value) {
    const auto task = std::get<std::string>(value);
    if (lower(task) == "detect") return;
    throw Error("option " + key + "=" + task + " is not supported",
                "this host trains and validates object detectors only; LibreYOLO's other tasks (segment, pose, obb, "
                "classify, semantic, gaze) have no heads, losses or metrics here",
                "leave " + key + " out, or write " + key + "=detect");
  };
}

ValueCheck freeze_syntax() {
  // Whether the groups and names exist is the trainer's to say, once the model is built.
  return [](const std::string&, const OptionValue& value) { parse_freeze_spec(std::get<std::string>(value)); };
}

}  // namespace libreyolo::core::config::checks

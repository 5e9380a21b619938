// Checks for LibreYOLO options whose every value parses but only some have a meaning here:
// task (this host trains detectors only) and freeze (LibreYOLO's freeze groups are family
// knowledge the SDK does not carry yet). Each refusal says why and what to write instead.

#include <algorithm>
#include <cctype>

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

ValueCheck no_freezing() {
  return [](const std::string& key, const OptionValue& value) {
    const auto freeze = lower(std::get<std::string>(value));
    if (freeze.empty() || freeze == "none" || freeze == "null" || freeze == "false" || freeze == "0") return;
    // LibreYOLO: freeze=N freezes the first N freeze groups, which each family defines (YOLOv9:
    // ten backbone stages, six neck stages, the head; most others: the model's top-level
    // modules), and a name freezes matching modules; both also stop the BatchNorm statistics.
    throw Error("option " + key + "=" + std::get<std::string>(value) + " is not supported yet",
                "in LibreYOLO freeze=N counts freeze groups that each family defines, and freeze=NAME also freezes the "
                "BatchNorm statistics of what it matches; the families here do not declare those groups, so the "
                "same command would freeze different layers than in LibreYOLO",
                "train without " + key + " (or " + key + "=0)");
  };
}

}  // namespace libreyolo::core::config::checks

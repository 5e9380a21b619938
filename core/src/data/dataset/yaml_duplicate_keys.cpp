#include "yaml_duplicate_keys.hpp"

#include <string>
#include <unordered_map>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

std::string line_of(const YAML::Node& node) {
  return node.Mark().is_null() ? std::string("?") : std::to_string(node.Mark().line + 1);
}

}  // namespace

void refuse_duplicate_keys(const std::filesystem::path& yaml, const YAML::Node& node) {
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) refuse_duplicate_keys(yaml, item);
    return;
  }
  if (!node.IsMap()) return;
  std::unordered_map<std::string, YAML::Node> seen;
  for (const auto& entry : node) {
    refuse_duplicate_keys(yaml, entry.second);
    if (!entry.first.IsScalar()) continue;
    const auto [first, inserted] = seen.emplace(entry.first.Scalar(), entry.first);
    if (inserted) continue;
    const std::string key = entry.first.Scalar();
    throw Error("Invalid dataset file " + yaml.string() + ":" + line_of(entry.first),
                "the key '" + key + "' appears twice (lines " + line_of(first->second) + " and " +
                    line_of(entry.first) + "); YAML keeps only one of them, so one would be "
                    "silently ignored",
                "Keep the one you mean and delete the other");
  }
}

}  // namespace libreyolo::core::data

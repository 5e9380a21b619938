#include "libreyolo/core/config/option_table.hpp"

#include <algorithm>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::config {
namespace {

std::string normalize(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

}  // namespace

OptionTable& OptionTable::add(OptionSpec spec) {
  specs_.push_back(std::move(spec));
  return *this;
}

OptionTable& OptionTable::add_alias(const std::string& alias, const std::string& target) {
  aliases_[alias] = target;
  return *this;
}

const OptionSpec* OptionTable::find(const std::string& raw_name) const {
  std::string name = normalize(raw_name);
  if (auto alias = aliases_.find(name); alias != aliases_.end()) name = alias->second;
  auto it = std::find_if(specs_.begin(), specs_.end(),
                         [&](const OptionSpec& spec) { return spec.name == name; });
  return it == specs_.end() ? nullptr : &*it;
}

const OptionSpec& OptionTable::require(const std::string& name, const std::string& origin) const {
  if (const auto* spec = find(name)) return *spec;
  std::vector<std::string> names;
  for (const auto& spec : specs_) names.push_back(spec.name);
  for (const auto& alias : aliases_) names.push_back(alias.first);
  const auto suggestion = closest_match(normalize(name), names);
  throw Error("unknown option '" + name + "' in " + origin,
              // The question first (what users read), then a plain clause for the full stop that follows.
              suggestion ? "did you mean '" + *suggestion + "'? (no option has that name)" : "no option has a similar name",
              "run 'libreyolo-host help <command>' to list the valid options");
}

}  // namespace libreyolo::core::config

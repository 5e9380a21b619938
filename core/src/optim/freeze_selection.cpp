#include "libreyolo/core/optim/freeze_selection.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/glob_match.hpp"

namespace libreyolo::core::optim {
namespace {

using config::FreezeSelector;
using config::FreezeSpec;

// A selector with and without LibreYOLO's "model." prefix: its models sit under the trainer's
// `model`, ours at the root, and both spellings mean the same module.
std::vector<std::string> spellings(const std::string& selector) {
  const std::string prefix = "model.";
  if (selector.rfind(prefix, 0) == 0) return {selector, selector.substr(prefix.size())};
  return {selector, prefix + selector};
}

bool has_glob(const std::string& text) { return text.find_first_of("*?") != std::string::npos; }

// LibreYOLO's _name_matches: the path itself, a prefix of it up to a dot, or a glob over it.
bool names(const std::string& selector, const std::string& path) {
  for (const auto& spelling : spellings(selector)) {
    if (spelling.empty()) continue;
    if (path == spelling || path.rfind(spelling + ".", 0) == 0) return true;
    if (has_glob(spelling) && glob_match(spelling, path)) return true;
  }
  return false;
}

// The parameter itself or any module above it ("a.b.c.weight": "a", "a.b", "a.b.c", the name).
bool names_parameter_or_module(const std::string& selector, const std::string& parameter) {
  for (std::size_t dot = parameter.find('.'); dot != std::string::npos; dot = parameter.find('.', dot + 1)) {
    if (names(selector, parameter.substr(0, dot))) return true;
  }
  return names(selector, parameter);
}

bool in_group(const sdk::FreezeGroup& group, const std::string& parameter) {
  return std::any_of(group.patterns.begin(), group.patterns.end(),
                     [&](const std::string& pattern) { return glob_match(pattern, parameter); });
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The parameters and groups the selectors so far select.
struct Selection {
  const std::vector<sdk::FreezeGroup>& groups;
  const std::vector<std::string>& parameters;
  std::set<std::size_t> frozen;
  std::set<std::size_t> chosen_groups;

  std::set<std::size_t> members(std::size_t g) const {
    std::set<std::size_t> found;
    for (std::size_t p = 0; p < parameters.size(); ++p) {
      if (in_group(groups[g], parameters[p])) found.insert(p);
    }
    return found;
  }

  void add_group(std::size_t g) {
    chosen_groups.insert(g);
    const auto found = members(g);
    frozen.insert(found.begin(), found.end());
  }

  // False when the name selects no parameter (LibreYOLO: "matched no parameters").
  bool add_name(const std::string& selector) {
    const bool everything = lower(selector) == "all";
    std::set<std::size_t> found, named_groups;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (!everything && !names(selector, groups[g].name)) continue;
      const auto in = members(g);
      if (!in.empty()) named_groups.insert(g);
      found.insert(in.begin(), in.end());
    }
    for (std::size_t p = 0; p < parameters.size(); ++p) {
      if (everything || names_parameter_or_module(selector, parameters[p])) found.insert(p);
    }
    if (found.empty()) return false;
    frozen.insert(found.begin(), found.end());
    chosen_groups.insert(named_groups.begin(), named_groups.end());
    return true;
  }
};

[[noreturn]] void index_out_of_range(const FreezeSpec& spec, int index, const std::vector<sdk::FreezeGroup>& groups,
                                     const std::string& model) {
  const std::string count = std::to_string(groups.size());
  const std::string listed = model + "'s freeze groups: " + describe_freeze_groups(groups);
  if (spec.count) {
    throw Error("freeze=" + spec.text + " asks for the first " + std::to_string(*spec.count) + " freeze groups, but " +
                    model + " has " + count,
                "freeze=N counts the family's freeze groups, as in LibreYOLO; " + listed,
                groups.size() > 1 ? "use freeze=" + std::to_string(groups.size() - 1) +
                                        " or less (freezing all of them leaves nothing to train), or name modules"
                                  : std::string("name the modules to freeze instead (freeze=MODULE.SUBMODULE)"));
  }
  throw Error("freeze index " + std::to_string(index) + " (in freeze=" + spec.text + ") is out of range for " + model,
              model + " has " + count + " freeze groups, numbered from 0; " + listed,
              "use indices from 0 to " + std::to_string(groups.empty() ? 0 : groups.size() - 1));
}

[[noreturn]] void selects_nothing(const FreezeSpec& spec, const FreezeSelector& selector,
                                  const std::vector<sdk::FreezeGroup>& groups, const std::string& model) {
  throw Error("freeze selector " + config::describe_selector(selector) + " (in freeze=" + spec.text +
                  ") matches no parameter of " + model,
              "a name selects freeze groups by name, modules by path and parameters by name: the whole name, a "
              "prefix of it up to a dot, or a glob with * and ?",
              "check the spelling; " + model + "'s freeze groups are " + describe_freeze_groups(groups));
}

[[noreturn]] void nothing_left(const FreezeSpec& spec, const std::vector<sdk::FreezeGroup>& groups,
                               const std::string& model) {
  const std::size_t most = groups.size() - 1;  // with spec.count, freeze=N of N groups or more
  const std::string fewer = spec.count && groups.size() > 1
                                ? "freeze at most " + std::to_string(most) + (most == 1 ? " group" : " groups") +
                                      " (freeze=" + std::to_string(most) + ")"
                                : "freeze fewer groups, or name a narrower module";
  throw Error("freeze=" + spec.text + " would leave " + model + " nothing to train",
              "it freezes every parameter that still trains (" + model + "'s freeze groups: " +
                  describe_freeze_groups(groups) + ")",
              fewer);
}

}  // namespace

std::vector<sdk::FreezeGroup> default_freeze_groups(const std::vector<std::string>& parameter_names) {
  std::vector<std::string> modules;
  for (const auto& name : parameter_names) {
    const auto dot = name.find('.');
    if (dot == std::string::npos) continue;  // a parameter of the root, in no top-level module
    const std::string module = name.substr(0, dot);
    if (std::find(modules.begin(), modules.end(), module) == modules.end()) modules.push_back(module);
  }
  if (modules.empty() && !parameter_names.empty()) return {{"model", {"*"}}};
  return sdk::module_freeze_groups(modules);
}

std::vector<sdk::FreezeGroup> freeze_groups_of(const std::vector<sdk::FreezeGroup>& declared,
                                               const std::vector<std::string>& parameter_names) {
  return declared.empty() ? default_freeze_groups(parameter_names) : declared;
}

FreezeChoice choose_frozen(const FreezeSpec& spec, const std::vector<sdk::FreezeGroup>& groups,
                           const std::vector<std::string>& parameter_names, const std::vector<bool>& trainable,
                           const std::string& model) {
  Selection selection{groups, parameter_names, {}, {}};
  for (const auto& selector : spec.selectors) {
    if (const auto* index = std::get_if<int>(&selector)) {
      if (*index < 0 || static_cast<std::size_t>(*index) >= groups.size()) index_out_of_range(spec, *index, groups, model);
      selection.add_group(static_cast<std::size_t>(*index));
    } else if (!selection.add_name(std::get<std::string>(selector))) {
      selects_nothing(spec, selector, groups, model);
    }
  }
  bool any_trainable_left = false;
  for (std::size_t p = 0; p < parameter_names.size(); ++p) {
    if (p < trainable.size() && trainable[p] && selection.frozen.count(p) == 0) any_trainable_left = true;
  }
  if (!spec.empty() && !any_trainable_left) nothing_left(spec, groups, model);
  return {{selection.frozen.begin(), selection.frozen.end()},
          {selection.chosen_groups.begin(), selection.chosen_groups.end()}};
}

std::string describe_freeze_groups(const std::vector<sdk::FreezeGroup>& groups) {
  if (groups.empty()) return "none";
  std::string text;
  for (std::size_t g = 0; g < groups.size(); ++g) text += (g ? ", " : "") + std::to_string(g) + " " + groups[g].name;
  return text;
}

}  // namespace libreyolo::core::optim

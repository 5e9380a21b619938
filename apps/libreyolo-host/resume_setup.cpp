#include "resume_setup.hpp"

#include <algorithm>
#include <map>

#include "libreyolo/core/config/option_report.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/resume_target.hpp"

namespace libreyolo::app {
namespace fs = std::filesystem;
using Pairs = std::vector<std::pair<std::string, std::string>>;
namespace {

// Say which run, not how it was named; cfg= is already folded into the saved values.
bool names_the_run(const std::string& option) {
  return option == "resume" || option == "project" || option == "name" || option == "exist_ok" || option == "cfg";
}

bool may_change(const std::string& option) {
  const auto& list = options_a_resume_may_change();
  return std::find(list.begin(), list.end(), option) != list.end();
}

bool is_weights_file(const std::string& model) {
  const auto ends = [&](const std::string& tail) {
    return model.size() > tail.size() && model.compare(model.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends(".pt") || ends(".pth");
}

// What the user gave (command line over cfg file), without the options that name the run.
Pairs given_options(const core::config::UserOptions& user) {
  Pairs given;
  for (const auto* layer : {&user.command_line, &user.cfg_file}) {
    for (const auto& [key, value] : *layer) {
      const bool seen = std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.first == key; });
      if (!seen && !names_the_run(key)) given.emplace_back(key, value);
    }
  }
  return given;
}

// The run's own options as the cfg layer, the user's accepted changes and the run's folder on the
// command line: resolution then gives the run's values, its folder and the new device/workers.
core::config::UserOptions resumed_options(const fs::path& root, const Pairs& saved, const Pairs& given) {
  core::config::UserOptions options;
  options.cfg_path = (root / "args.yaml").string();
  for (const auto& entry : saved) {
    if (!names_the_run(entry.first)) options.cfg_file.push_back(entry);
  }
  for (const auto& entry : given) options.command_line.push_back(entry);
  const auto project = root.parent_path().empty() ? fs::path(".") : root.parent_path();
  options.command_line.emplace_back("resume", "true");
  options.command_line.emplace_back("project", project.string());
  options.command_line.emplace_back("name", root.filename().string());
  return options;
}

// The model to load: a family name as saved; for a run started from a weights file, its own
// last.pt (the family and size are in it, and the original file may be gone).
std::string model_to_resolve(const fs::path& root, const Pairs& saved) {
  for (const auto& [key, value] : saved) {
    if (key == "model" && !value.empty() && !is_weights_file(value)) return value;
  }
  return (root / "weights" / "last.pt").string();
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// Each option the user gave, in its canonical form (as args.yaml writes it), against the run's.
void refuse_differences(const fs::path& root, const Pairs& saved, const Pairs& given, const ModelRun& run) {
  const auto request = make_train_request(run);
  std::map<std::string, std::string> now;
  for (const auto& option : core::config::report_options(request.config, request.sources)) now[option.name] = option.value;
  std::map<std::string, std::string> before(saved.begin(), saved.end());
  std::vector<std::string> refused, accepted;
  for (const auto& [key, raw] : given) {
    const auto it = before.find(key);
    const std::string was = it == before.end() ? "(not set)" : it->second;
    const std::string value = now.count(key) ? now[key] : raw;
    if (value == was) continue;
    (may_change(key) ? accepted : refused).push_back(key + "=" + value + " (the run has " + was + ")");
  }
  if (!refused.empty()) {
    throw core::Error("cannot resume " + root.string() + " with different options: " + join(refused, "; "),
                      "a resume continues the run exactly as it was started (its args.yaml); only " +
                          join(options_a_resume_may_change(), ", ") + " may change",
                      "leave these options out to continue the run, or start a new run from its weights with "
                      "model=" + (root / "weights" / "last.pt").string() + " and your options");
  }
  for (const auto& change : accepted) core::log::info("resume: ", change);
}

}  // namespace

const std::vector<std::string>& options_a_resume_may_change() {
  static const std::vector<std::string> options{"device", "workers", "cache", "verbose", "plugin_dir"};
  return options;
}

ModelRun resolve_resumed_run(const core::config::UserOptions& user, const core::config::OptionTable& table) {
  const auto project = user.lookup("project").value_or(table.find("project")->default_value);
  const auto root = core::trainer::resume_run_root(*user.lookup("resume"), project, user.lookup("name"));
  const auto saved = core::trainer::read_run_arguments(root);
  const auto given = given_options(user);
  auto options = resumed_options(root, saved, given);
  auto run = resolve_model_run(std::move(options), model_to_resolve(root, saved), table);
  refuse_differences(root, saved, given, run);
  core::log::info("resume: every option from ", (root / "args.yaml").string(), " (the run as it was started)");
  return run;
}

}  // namespace libreyolo::app

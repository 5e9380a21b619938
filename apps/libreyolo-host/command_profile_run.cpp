// `profile run DATA (--weights W.pt | --model F --size S) [--batch N] [--repeat N] [key=value ...]`:
// a training run that exists to be measured. It is an ordinary `train` with profile=true and
// no_aug_epochs=0 (the profiler measures epoch 0's augmentation; a short run with the default
// would profile the lighter no-augmentation loader), enough epochs to fill the window, no
// validation or periodic checkpoints, and it stops as soon as the window is reported.
// --repeat N measures N windows into prof_1..prof_N of one run folder and summarises them in
// profile_repeat.json.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "commands.hpp"
#include "host_setup.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/family_defaults.hpp"
#include "libreyolo/core/profiler/profile_json.hpp"
#include "libreyolo/core/profiler/profile_repeat.hpp"
#include "libreyolo/core/trainer/trainer.hpp"
#include "libreyolo/core/util/remove_tree.hpp"

namespace libreyolo::app {
namespace {

namespace fs = std::filesystem;
using core::config::OptionType;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// train's options plus the three that only `profile run` has.
core::config::OptionTable profile_run_options() {
  auto table = core::config::train_options();
  table.add({"weights", OptionType::text, "", "LibreYOLO .pt to start from (names its family and size)", {}})
      .add({"size", OptionType::text, "", "model size, with --model FAMILY", {}})
      .add({"repeat", OptionType::integer, "1", "measure N windows: prof_1..prof_N and profile_repeat.json", {}});
  return table;
}

std::string lookup_or(const Pairs& pairs, const std::string& key, const std::string& fallback) {
  for (const auto& [k, v] : pairs) {
    if (k == key) return v;
  }
  return fallback;
}

bool has(const Pairs& pairs, const std::string& key) {
  for (const auto& entry : pairs) {
    if (entry.first == key) return true;
  }
  return false;
}

// The `train` arguments this profile run stands for.
struct TrainArgs {
  Args args;
  int repeat = 1;
  Pairs user;  // what the user set on the command line, canonical keys
};

TrainArgs to_train_args(const Args& args) {
  const auto table = profile_run_options();
  const auto user = core::config::read_user_options(args, table);
  TrainArgs out;
  out.user = user.command_line;
  const auto& cl = user.command_line;
  if (user.positionals.size() > 1) {
    throw core::Error("profile run takes one DATA argument, got " + std::to_string(user.positionals.size()),
                      "'" + user.positionals[1] + "' is extra", "options are written key=value or --key value");
  }
  std::string data = user.positionals.empty() ? lookup_or(cl, "data", "") : user.positionals.front();
  if (data.empty()) throw core::Error("profile run needs a dataset", "no DATA was given", "pass DATA (data.yaml or a dataset name) first");
  const auto weights = lookup_or(cl, "weights", ""), family = lookup_or(cl, "model", ""), size = lookup_or(cl, "size", "");
  if (!weights.empty() && !family.empty()) {
    throw core::Error("profile run got both --weights and --model", "the weights name their own family and size",
                      "pass one of them");
  }
  if (weights.empty() && family.empty()) {
    throw core::Error("profile run needs a model", "neither --weights nor --model was given",
                      "pass --weights W.pt, or --model yolo9 --size s");
  }
  const auto repeat = lookup_or(cl, "repeat", "1");
  try {
    out.repeat = std::stoi(repeat);
  } catch (const std::exception&) {
    out.repeat = 0;
  }
  if (out.repeat < 1 || out.repeat > 1000) {
    throw core::Error("--repeat " + repeat + " is out of range", "expected an integer from 1 to 1000", "pass --repeat 3");
  }

  const std::set<std::string> replaced = {"weights", "size", "repeat", "model", "data", "profile", "no_aug_epochs"};
  for (const auto& [key, value] : cl) {
    if (!replaced.count(key)) out.args.push_back(key + "=" + value);
  }
  out.args.push_back("data=" + data);
  out.args.push_back("model=" + (weights.empty() ? family + size : weights));
  out.args.push_back("profile=true");
  out.args.push_back("no_aug_epochs=0");
  if (!has(cl, "project")) out.args.push_back("project=runs/profile");
  if (has(cl, "no_aug_epochs") && lookup_or(cl, "no_aug_epochs", "0") != "0") {
    core::log::info("profile run: no_aug_epochs=0 (the window measures epoch 0's augmentation)");
  }
  return out;
}

// Sets `values` on the command-line layer (replacing the user's) and resolves again.
void override_options(ModelRun& run, const Pairs& values) {
  auto& cl = run.user.command_line;
  for (const auto& [key, value] : values) {
    bool replaced = false;
    for (auto& entry : cl) {
      if (entry.first == key) {
        entry.second = value;
        replaced = true;
      }
    }
    if (!replaced) cl.emplace_back(key, value);
  }
  const auto table = core::config::train_options();
  run.options = core::config::resolve_options(table, run.user, "family " + run.family->info.name + "'s recipe",
                                              core::plugins::family_option_defaults(*run.family, run.size, table));
}

// The window needs profile_skip + profile_steps steps, and every epoch has at least one: that many
// epochs always fill it, and the run stops at the report. No validation, no periodic checkpoints.
void size_the_run(ModelRun& run, const Pairs& user) {
  const auto window = run.options.get_int("profile_skip") + run.options.get_int("profile_steps");
  Pairs values;
  if (!has(user, "epochs")) values.emplace_back("epochs", std::to_string(std::max<long long>(1, window)));
  if (!has(user, "eval_interval")) values.emplace_back("eval_interval", std::to_string(std::max<long long>(1, window)));
  if (!has(user, "save_period")) values.emplace_back("save_period", "0");
  if (!values.empty()) override_options(run, values);
}

fs::path measured_window(const core::trainer::TrainOutcome& outcome) {
  const auto folder = outcome.run.root / "prof";
  if (!fs::is_regular_file(folder / "profile.json")) {
    throw core::Error("the profiler's window was not filled in " + outcome.run.root.string(),
                      "training ended after " + std::to_string(outcome.epochs_completed) + " epochs without a report",
                      "pass more epochs=, or lower profile_skip / profile_steps");
  }
  return folder;
}

}  // namespace

int run_profile_run(const Args& args) {
  const auto train_args = to_train_args(args);
  auto run = resolve_model_run("profile run", train_args.args, core::config::train_options());
  size_the_run(run, train_args.user);
  std::cout << "profile run: " << run.family->info.name << run.size << " (" << run.family->info.display_name
            << "); options not at their default:\n";
  print_option_summary(run.options);
  std::cout.flush();  // before the trainer's log lines on stderr

  std::vector<core::profiler::ProfileReport> reports;
  std::vector<std::string> folders;
  fs::path root;
  for (int i = 1; i <= train_args.repeat; ++i) {
    auto request = make_train_request(run);
    request.stop_when_profiled = true;
    const auto outcome = core::trainer::train(request);
    if (outcome.interrupted) return kExitInterrupted;
    auto folder = measured_window(outcome);
    root = outcome.run.root;
    if (train_args.repeat > 1) {
      const auto numbered = root / ("prof_" + std::to_string(i));
      std::error_code error;
      core::util::remove_tree(numbered, error);  // not fs::remove_all: see remove_tree.hpp
      if (!error) fs::rename(folder, numbered, error);
      if (error) throw core::Error("cannot move " + folder.string() + " to " + numbered.string(), error.message(),
                                   "check the run folder's permissions");
      folder = numbered;
      // Later repeats measure into the same run folder.
      if (i == 1) {
        override_options(run, {{"project", root.parent_path().string()}, {"name", root.filename().string()}, {"exist_ok", "true"}});
      }
    }
    folders.push_back(folder.filename().string());
    reports.push_back(core::profiler::read_profile_json(folder / "profile.json"));
  }
  if (train_args.repeat > 1) {
    const auto summary = core::profiler::summarize_repeats(reports, folders);
    std::ofstream out(root / "profile_repeat.json");
    core::profiler::write_profile_repeat_json(out, summary);
    if (!out) throw core::Error("cannot write " + (root / "profile_repeat.json").string(), "the write failed", "check the disk");
    std::cout << core::profiler::format_repeat_summary(summary) << "profiles in " << root.string()
              << "/prof_1.." << train_args.repeat << ", summary in " << (root / "profile_repeat.json").string() << "\n";
  } else {
    std::cout << "verdict: " << core::profiler::verdict_name(reports.front().verdict.kind) << "\nprofile in "
              << (root / "prof").string()
              << ": timeline.html (open in a browser), profile_trace.json (Perfetto), profile_summary.json, profile.json\n";
  }
  return kExitOk;
}

}  // namespace libreyolo::app

// `profile run DATA (--weights W.pt | --model F --size S) [--batch N] [--repeat N] [key=value ...]`:
// a training run that exists to be measured: an ordinary `train` whose TrainConfig gets profile
// run's rules (trainer/profile_run_rules.hpp: profile=true, no_aug_epochs=0, a run sized to the
// window, project=runs/profile) and which stops as soon as the window is reported.
// --repeat N measures N windows into prof_1..prof_N of one run folder and summarises them in
// profile_repeat.json.

#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "host_setup.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/profiler/profile_json.hpp"
#include "libreyolo/core/profiler/profile_repeat.hpp"
#include "libreyolo/core/trainer/profile_run_rules.hpp"
#include "libreyolo/core/trainer/trainer.hpp"
#include "libreyolo/core/util/remove_tree.hpp"

namespace libreyolo::app {
namespace {

namespace fs = std::filesystem;
using Pairs = std::vector<std::pair<std::string, std::string>>;

std::string lookup_or(const Pairs& pairs, const std::string& key, const std::string& fallback) {
  for (const auto& [k, v] : pairs) {
    if (k == key) return v;
  }
  return fallback;
}

// What the user asked for, checked before any plugin loads. DATA, the model and --repeat come
// from the command line, as docs/cli.md's usage line writes them.
struct ProfileRunPlan {
  core::config::UserOptions user;
  core::trainer::ProfileRunInput input;
  int repeat = 1;
};

ProfileRunPlan read_plan(const Args& args, const core::config::OptionTable& table) {
  ProfileRunPlan plan;
  plan.user = core::config::read_user_options(args, table);
  apply_verbosity(plan.user);
  const auto& user = plan.user;
  const auto& cl = user.command_line;
  if (user.positionals.size() > 1) {
    throw core::Error("profile run takes one DATA argument, got " + std::to_string(user.positionals.size()),
                      "'" + user.positionals[1] + "' is extra", "options are written key=value or --key value");
  }
  plan.input.data = user.positionals.empty() ? lookup_or(cl, "data", "") : user.positionals.front();
  if (plan.input.data.empty()) throw core::Error("profile run needs a dataset", "no DATA was given", "pass DATA (data.yaml or a dataset name) first");
  const auto weights = lookup_or(cl, "weights", ""), family = lookup_or(cl, "model", ""), size = lookup_or(cl, "size", "");
  if (!weights.empty() && !family.empty()) {
    throw core::Error("profile run got both --weights and --model", "the weights name their own family and size",
                      "pass one of them");
  }
  if (weights.empty() && family.empty()) {
    throw core::Error("profile run needs a model", "neither --weights nor --model was given",
                      "pass --weights W.pt, or --model yolo9 --size s");
  }
  plan.input.model = weights.empty() ? family + size : weights;
  plan.input.command_line = cl;
  const auto repeat = lookup_or(cl, "repeat", "1");  // an integer: read_user_options checked it
  const auto count = std::get<long long>(core::config::parse_option_value(*table.find("repeat"), repeat, "the command line"));
  if (count < 1 || count > 1000) {
    throw core::Error("--repeat " + repeat + " is out of range", "expected an integer from 1 to 1000", "pass --repeat 3");
  }
  plan.repeat = static_cast<int>(count);
  return plan;
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

// Moves run/prof to run/prof_<i>, so that the next repeat has a fresh prof/.
fs::path number_window(const fs::path& folder, const fs::path& root, int i) {
  const auto numbered = root / ("prof_" + std::to_string(i));
  std::error_code error;
  core::util::remove_tree(numbered, error);  // not fs::remove_all: see remove_tree.hpp
  if (!error) fs::rename(folder, numbered, error);
  if (error) throw core::Error("cannot move " + folder.string() + " to " + numbered.string(), error.message(),
                               "check the run folder's permissions");
  return numbered;
}

void report(const std::vector<core::profiler::ProfileReport>& reports, const std::vector<std::string>& folders,
            const fs::path& root, int repeat) {
  if (repeat > 1) {
    const auto summary = core::profiler::summarize_repeats(reports, folders);
    std::ofstream out(root / "profile_repeat.json");
    core::profiler::write_profile_repeat_json(out, summary);
    if (!out) throw core::Error("cannot write " + (root / "profile_repeat.json").string(), "the write failed", "check the disk");
    std::cout << core::profiler::format_repeat_summary(summary) << "profiles in " << root.string()
              << "/prof_1.." << repeat << ", summary in " << (root / "profile_repeat.json").string() << "\n";
  } else {
    std::cout << "verdict: " << core::profiler::verdict_name(reports.front().verdict.kind) << "\nprofile in "
              << (root / "prof").string()
              << ": timeline.html (open in a browser), profile_trace.json (Perfetto), profile_summary.json, profile.json\n";
  }
}

}  // namespace

int run_profile_run(const Args& args) {
  const auto table = core::config::profile_run_options();
  const auto plan = read_plan(args, table);
  const auto run = resolve_model_run(plan.user, plan.input.model, table);
  auto request = make_train_request(run, core::config::unchecked_train_config(run.options));
  core::trainer::apply_profile_run_rules(request, plan.input);
  core::config::check_train_config(request.config);
  request.stop_when_profiled = true;
  std::cout << "profile run: " << run.family->info.name << run.size << " (" << run.family->info.display_name
            << "); options not at their default:\n";
  print_option_summary(request);
  std::cout.flush();  // before the trainer's log lines on stderr

  std::vector<core::profiler::ProfileReport> reports;
  std::vector<std::string> folders;
  fs::path root;
  for (int i = 1; i <= plan.repeat; ++i) {
    const auto outcome = core::trainer::train(request);
    if (outcome.interrupted) return kExitInterrupted;
    auto folder = measured_window(outcome);
    root = outcome.run.root;
    if (plan.repeat > 1) {
      folder = number_window(folder, root, i);
      if (i == 1) core::trainer::reuse_run_folder(request, root);  // later repeats measure into the same run folder
    }
    folders.push_back(folder.filename().string());
    reports.push_back(core::profiler::read_profile_json(folder / "profile.json"));
  }
  report(reports, folders, root, plan.repeat);
  return kExitOk;
}

}  // namespace libreyolo::app

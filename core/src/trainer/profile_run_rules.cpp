#include "libreyolo/core/trainer/profile_run_rules.hpp"

#include <algorithm>
#include <climits>

#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::trainer {
namespace {

bool typed_by_user(const ProfileRunInput& input, const std::string& key) {
  return std::any_of(input.command_line.begin(), input.command_line.end(),
                     [&](const auto& entry) { return entry.first == key; });
}

// The decision stands where the command line's would: it is what `profile run` asks for.
void decided(TrainRequest& request, const std::string& name) {
  request.sources.set(name, config::OptionSource::command_line);
  request.config.user_set.insert(name);
}

}  // namespace

void apply_profile_run_rules(TrainRequest& request, const ProfileRunInput& input) {
  auto& c = request.config;
  if (typed_by_user(input, "no_aug_epochs") && c.no_aug_epochs != 0) {
    log::info("profile run: no_aug_epochs=0 (the window measures epoch 0's augmentation)");
  }
  c.data = input.data;
  c.model = input.model;
  c.profile = true;
  c.no_aug_epochs = 0;
  for (const char* name : {"data", "model", "profile", "no_aug_epochs"}) decided(request, name);
  if (!typed_by_user(input, "project")) {
    c.project = "runs/profile";
    decided(request, "project");
  }
  // The window needs profile_skip + profile_steps steps, and every epoch has at least one: that
  // many epochs always fill it, and the run stops at the report. No validation, no periodic
  // checkpoints. (Clamped so that absurd unchecked values fail epochs' range check, not overflow.)
  const long long window = std::max(1LL, static_cast<long long>(c.profile_skip) + c.profile_steps);
  const int epochs = static_cast<int>(std::min<long long>(window, INT_MAX));
  if (!typed_by_user(input, "epochs")) {
    c.epochs = epochs;
    decided(request, "epochs");
  }
  if (!typed_by_user(input, "eval_interval")) {
    c.eval_interval = epochs;
    decided(request, "eval_interval");
  }
  if (!typed_by_user(input, "save_period")) {
    c.save_period = 0;
    decided(request, "save_period");
  }
}

void reuse_run_folder(TrainRequest& request, const std::filesystem::path& run_root) {
  request.config.project = run_root.parent_path().string();
  request.config.name = run_root.filename().string();
  request.config.exist_ok = true;
  for (const char* name : {"project", "name", "exist_ok"}) decided(request, name);
}

}  // namespace libreyolo::core::trainer

#pragma once
// `profile run DATA (--weights W.pt | --model F --size S) ...` is an ordinary `train` with its
// own rules, applied to the typed config::TrainConfig (never to a `train` argv): profile=true and
// no_aug_epochs=0 (the profiler measures epoch 0's augmentation; a short run with the default
// would profile the lighter no-augmentation loader), project=runs/profile unless given, and
// enough epochs to fill the window with no validation or periodic checkpoints. docs/cli.md.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::core::trainer {

struct ProfileRunInput {
  std::string data;   // DATA, or data= when no DATA was given
  std::string model;  // W.pt, or FAMILY + SIZE
  // What the user typed on the command line (canonical keys): the rules leave the options set
  // there alone, except profile, no_aug_epochs, data and model.
  std::vector<std::pair<std::string, std::string>> command_line;
};

// Applies the rules to request.config (the typed values of the user's options, before
// check_train_config) and records each decision in request.sources and config.user_set as the
// command line's: `profile run` on the command line asks for them.
void apply_profile_run_rules(TrainRequest& request, const ProfileRunInput& input);

// --repeat: the runs after the first measure into the first one's folder.
void reuse_run_folder(TrainRequest& request, const std::filesystem::path& run_root);

}  // namespace libreyolo::core::trainer

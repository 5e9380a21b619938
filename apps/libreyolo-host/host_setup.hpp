#pragma once
// Steps every command shares: console verbosity and loading the family plugins.

#include <filesystem>
#include <optional>
#include <string>

#include "commands.hpp"

#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/plugins/family_registry.hpp"
#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::app {

// verbose=true switches the console to debug level.
void apply_verbosity(const core::config::UserOptions& user);

// Searches --plugin-dir (if the user gave one), $LIBREYOLO_PLUGIN_PATH, then the folder next
// to the binary; each plugin file is scanned in a child process first (or its verdict read
// from the plugin registry cache). Refused plugins were already warned about.
core::plugins::FamilyRegistry load_families(const core::config::UserOptions& user);

}  // namespace libreyolo::app

namespace libreyolo::app {

// A command's options fully resolved for one model: the user's options, the family they
// name, and every option of the command's table with its value and source (the command's own
// options, such as bench's steps, are read from here; train's go into a TrainConfig).
struct ModelRun {
  core::config::UserOptions user;
  core::plugins::FamilyRegistry registry;
  const core::plugins::LoadedFamily* family = nullptr;
  std::string size;
  core::config::ResolvedOptions options;
  std::optional<core::trainer::StartWeights> weights;  // model=file.pt, read once
};

// share/libreyolo/datasets of this install (or of the source tree, for a build tree).
std::filesystem::path bundled_datasets_dir();

// Reads `args` against `table`; model= names the model.
ModelRun resolve_model_run(const std::string& command, const Args& args,
                           const core::config::OptionTable& table);
// The user's options, already read, resolved for `model` (a family + size or a .pt file).
ModelRun resolve_model_run(core::config::UserOptions user, const std::string& model,
                           const core::config::OptionTable& table);

// What the trainer needs from a resolved command line: the options as one typed, checked
// TrainConfig (make_train_config, here and nowhere later), where each came from, the family and
// the starting weights.
core::trainer::TrainRequest make_train_request(const ModelRun& run);
// The same around a TrainConfig the caller made (profile run applies its rules first).
core::trainer::TrainRequest make_train_request(const ModelRun& run, core::config::TrainConfig config);

// Prints the options that differ from the built-in defaults, with where each came from.
void print_option_summary(const core::trainer::TrainRequest& request);

}  // namespace libreyolo::app

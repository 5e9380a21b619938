#include "host_setup.hpp"

#include <cstdlib>
#include <iostream>

#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/config/option_report.hpp"
#include "libreyolo/core/config/train_option_list.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/family_defaults.hpp"
#include "libreyolo/core/plugins/plugin_isolation.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/plugins/size_from_weights.hpp"
#include "libreyolo/core/weights/resolve_weights.hpp"
#include "table_printer.hpp"

namespace libreyolo::app {

void apply_verbosity(const core::config::UserOptions& user) {
  if (auto verbose = user.lookup("verbose")) {
    const auto& spec = core::config::find_train_option("verbose")->spec;
    if (std::get<bool>(core::config::parse_option_value(spec, *verbose, "the command line"))) {
      core::log::set_level(core::log::Level::debug);
    }
  }
}

core::plugins::FamilyRegistry load_families(const core::config::UserOptions& user) {
  std::vector<std::filesystem::path> explicit_dirs;
  if (auto dir = user.lookup("plugin_dir"); dir && !dir->empty()) explicit_dirs.emplace_back(*dir);
  const auto dirs = core::plugins::plugin_search_path(
      explicit_dirs, std::getenv("LIBREYOLO_PLUGIN_PATH"), core::plugins::executable_dir());
  for (const auto& dir : dirs) core::log::debug("plugin folder: ", dir.string());
  // The user named these folders; the default ones next to the binary often do not exist.
  for (const auto& dir : explicit_dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      core::log::warn("plugin folder ", dir.string(), " (plugin_dir=) ",
                      std::filesystem::exists(dir, ec) ? "is not a folder" : "does not exist", "; it is skipped");
    }
  }
  const auto settings = core::plugins::isolation_settings(
      core::plugins::executable_dir(), [](const char* name) { return std::getenv(name); });
  return core::plugins::load_plugins_isolated(dirs, settings);
}

std::filesystem::path bundled_datasets_dir() {
  const auto installed = core::plugins::executable_dir().parent_path() / LIBREYOLO_INSTALL_DATADIR / "libreyolo" / "datasets";
  if (std::filesystem::is_directory(installed)) return installed;
#ifdef LIBREYOLO_SOURCE_DATASETS
  return LIBREYOLO_SOURCE_DATASETS;  // running from a build tree
#else
  return installed;
#endif
}

ModelRun resolve_model_run(const std::string& command, const Args& args,
                           const core::config::OptionTable& table) {
  auto user = core::config::read_user_options(args, table);
  apply_verbosity(user);
  if (!user.positionals.empty()) {
    throw core::Error("unexpected argument '" + user.positionals.front() + "' for " + command,
                      "options are written key=value or --key value",
                      "did you mean model=" + user.positionals.front() + "?");
  }
  const auto model = user.lookup("model");
  if (!model || model->empty()) {
    throw core::Error(command + " needs a model", "model= is not set",
                      "pass model=yolo9s (family + size) or model=path/to/weights.pt");
  }
  return resolve_model_run(std::move(user), *model, table);
}

ModelRun resolve_model_run(core::config::UserOptions user, const std::string& model,
                           const core::config::OptionTable& table) {
  ModelRun run;
  run.user = std::move(user);
  run.registry = load_families(run.user);
  if (core::weights::looks_like_checkpoint(model)) {
    // A name like LibreYOLO9s.pt is searched for and, if LibreYOLO publishes it, downloaded.
    const auto found = core::weights::resolve_weights(model, core::weights::process_weights_environment(),
                                                      core::weights::system_downloader());
    if (!found.how.empty()) core::log::info("weights ", model, ": ", found.file.string(), " (", found.how, ")");
    const auto file = found.file.string();
    // A LibreYOLO .pt names its family and size in its metadata.
    auto saved = std::make_shared<const core::checkpoint::Checkpoint>(core::checkpoint::load_checkpoint(file));
    run.family = &run.registry.require(saved->metadata.model_family);
    run.size = core::plugins::size_from_weights(run.family->info, *saved, file);
    run.weights = core::trainer::StartWeights{file, std::move(saved)};
  } else {
    const auto name = run.registry.resolve_model_name(model);
    run.family = name.family;
    run.size = name.size;
  }
  run.options = core::config::resolve_options(
      table, run.user, "family " + run.family->info.name + "'s recipe",
      core::plugins::family_option_defaults(*run.family, run.size, table));
  return run;
}

core::trainer::TrainRequest make_train_request(const ModelRun& run) {
  return make_train_request(run, core::config::make_train_config(run.options));
}

core::trainer::TrainRequest make_train_request(const ModelRun& run, core::config::TrainConfig config) {
  core::trainer::TrainRequest request;
  request.config = std::move(config);
  request.sources = core::config::OptionSources(run.options);
  request.family = run.family;
  request.size = run.size;
  request.weights = run.weights;
  request.bundled_datasets = bundled_datasets_dir();
  return request;
}

void print_option_summary(const core::trainer::TrainRequest& request) {
  TablePrinter printer({"option", "value", "from"});
  for (const auto& option : core::config::report_options(request.config, request.sources)) {
    if (option.source == core::config::OptionSource::global_default) continue;
    printer.add_row({option.name, option.value, core::config::to_string(option.source)});
  }
  printer.print(std::cout, "  ");
}

}  // namespace libreyolo::app

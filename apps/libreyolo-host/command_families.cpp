// `libreyolo-host families [NAME]`: what gst-inspect is to GStreamer. Without NAME a table of
// every family found plus the plugins that were refused and why; with NAME, its details and
// recipe: option defaults, augmentation pipelines, epoch schedule and optimizer groups per size.

#include <iomanip>
#include <iostream>

#include "commands.hpp"
#include "host_setup.hpp"
#include "libreyolo/core/config/option_spec.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/plugins/family_defaults.hpp"
#include "libreyolo/core/trainer/recipe_description.hpp"
#include "table_printer.hpp"

namespace libreyolo::app {
namespace {

std::string join(const std::vector<std::string>& words, const char* separator = " ") {
  std::string joined;
  for (const auto& w : words) joined += (joined.empty() ? "" : separator) + w;
  return joined;
}

const char* yes_no(bool value) { return value ? "yes" : "no"; }

void print_family_details(const core::plugins::LoadedFamily& f) {
  std::cout << f.info.display_name << " (" << f.info.name << ")\n"
            << "  " << f.info.description << "\n\n"
            << "  plugin file     " << f.file.string() << "\n"
            << "  plugin version  " << f.info.version << "\n"
            << "  sizes           " << join(f.info.sizes) << "\n"
            << "  tasks           " << join(f.info.tasks) << "\n"
            << "  amp             " << (f.policy.amp ? "on" : "off") << " by default"
            << (f.policy.amp || f.policy.amp_off_reason.empty() ? "" : ": " + f.policy.amp_off_reason) << "\n"
            << "  sync_bn         " << (f.policy.sync_bn ? "on" : "off") << " by default\n"
            << "  capture region  " << sdk::to_string(f.policy.capture) << "\n"
            << "  multi-GPU spawn " << yes_no(f.policy.supports_spawn) << "\n"
            << "  validation      " << sdk::to_string(f.info.eval_resize) << " resize, "
            << (f.info.suppression == sdk::Suppression::none ? "no NMS (the max_det best scores)" : "per-class NMS")
            << "\n";
  const auto table = core::config::train_options();
  for (const auto& size : f.info.sizes) {
    std::cout << "\n  training defaults for " << f.info.name << size << ":\n";
    for (const auto& [key, value] : core::plugins::family_option_defaults(f, size, table)) {
      std::cout << "    " << std::left << std::setw(16) << key << core::config::format_option_value(value) << "\n";
    }
    for (const auto& line : core::trainer::describe_recipe(f, size)) std::cout << "    " << line << "\n";
  }
}

}  // namespace

int run_families(const Args& args) {
  auto user = core::config::read_user_options(args, core::config::train_options());
  apply_verbosity(user);
  const auto registry = load_families(user);

  if (!user.positionals.empty()) {
    print_family_details(registry.require(user.positionals.front()));
    return kExitOk;
  }

  TablePrinter table({"family", "sizes", "tasks", "amp", "sync_bn", "capture", "spawn", "file"});
  for (const auto& f : registry.families()) {
    table.add_row({f.info.name, join(f.info.sizes, ","), join(f.info.tasks, ","),
                   f.policy.amp ? "on" : "off", f.policy.sync_bn ? "on" : "off",
                   sdk::to_string(f.policy.capture), yes_no(f.policy.supports_spawn),
                   f.file.filename().string()});
  }
  if (registry.families().empty()) {
    std::cout << "No families found.\n";
  } else {
    table.print(std::cout);
  }
  if (!registry.refused().empty()) {
    std::cout << "\nRefused plugins:\n";
    for (const auto& r : registry.refused()) {
      std::cout << "  " << r.file.string() << "\n    " << r.reason << "\n";
    }
  }
  std::cout << "\n" << registry.families().size() << " famil"
            << (registry.families().size() == 1 ? "y" : "ies") << ", "
            << registry.refused().size() << " refused. 'libreyolo-host families NAME' shows one.\n";
  return kExitOk;
}

}  // namespace libreyolo::app

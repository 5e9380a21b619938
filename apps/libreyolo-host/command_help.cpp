// `libreyolo-host help [COMMAND]`.

#include <algorithm>
#include <iostream>

#include "commands.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/progress_display.hpp"
#include "table_printer.hpp"

namespace libreyolo::app {
namespace {

void print_options(const core::config::OptionTable& table) {
  const auto width = core::trainer::terminal_width();
  TablePrinter printer({"option", "default", "type", "meaning"});
  // Long types (an enum's aliases) and meanings (fused_kernels' list) wrap within the terminal.
  printer.wrap_column(2, 18);
  printer.fit_lines(width);
  for (const auto& spec : table.specs()) {
    printer.add_row({spec.name, spec.default_value.empty() ? "-" : spec.default_value,
                     core::config::describe_type(spec), spec.help});
  }
  printer.print(std::cout, "  ");
  if (!table.aliases().empty()) {
    std::string aliases = "aliases:";
    for (const auto& [alias, target] : table.aliases()) aliases += " " + alias + "=" + target;
    std::cout << "\n";
    for (const auto& line : wrap_text(aliases, width > 12 ? width - 2 : 10)) std::cout << "  " << line << "\n";
  }
}

// The options of `full` that `base` has not: a command's own, beside train's.
core::config::OptionTable own_options(const core::config::OptionTable& full, const core::config::OptionTable& base) {
  core::config::OptionTable own;
  const auto& shared = base.specs();
  for (const auto& spec : full.specs()) {
    const bool in_base = std::any_of(shared.begin(), shared.end(), [&](const auto& s) { return s.name == spec.name; });
    if (!in_base) own.add(spec);
  }
  return own;
}

void print_bench_help() {
  std::cout << "usage: libreyolo-host bench SUBJECT model=FAMILY+SIZE|FILE.pt data=DATA [options]\n\nsubjects:\n";
  TablePrinter subjects({"", ""});
  subjects.add_row({"data", "the data loader alone: images/s (model= picks the augmentation; no model needed)"});
  subjects.add_row({"step", "one real batch through the whole training step: ms a step (synchronised and back to back), "
                            "the host's issue time, memory; on CUDA kernels a step and GPU busy time"});
  subjects.add_row({"capture", "bench step eager and with cuda_graph=true from the same start: speedup, memory, "
                               "losses and gradients compared"});
  subjects.add_row({"fused", "bench step with fused_kernels=off (or measured) against the given fused_kernels, "
                             "one process: speedup, losses and gradients compared"});
  subjects.add_row({"train", "a real training run: images/s without the first epoch (device=0,1: one worker a GPU)"});
  subjects.fit_lines(core::trainer::terminal_width());
  subjects.print(std::cout, "  ");
  std::cout << "\noptions: every train option (libreyolo-host help train), and\n\n";
  print_options(own_options(core::config::bench_options(), core::config::train_options()));
}

}  // namespace

int run_help(const Args& args) {
  if (args.empty()) {
    std::cout << "libreyolo-host: train real-time object detectors (LibreYOLO-compatible)\n\n"
                 "usage: libreyolo-host COMMAND [key=value | --key value ...]\n\ncommands:\n";
    TablePrinter printer({"", ""});
    for (const auto& c : commands()) printer.add_row({c.name, c.summary});
    printer.print(std::cout, "  ");
    std::cout << "\nOptions come as key=value or --key value; cfg=file.yaml supplies defaults.\n"
                 "Precedence: command line > cfg file > family recipe > built-in default.\n"
                 "docs/cli.md documents every option.\n";
    return kExitOk;
  }
  const auto& name = args.front();
  if (name == "train") {
    std::cout << "usage: libreyolo-host train model=FAMILY+SIZE|FILE.pt data=DATA [options]\n\n";
    print_options(core::config::train_options());
  } else if (name == "val") {
    std::cout << "usage: libreyolo-host val model=FILE.pt data=DATA [options]\n\n";
    print_options(core::config::val_options());
  } else if (name == "predict") {
    std::cout << "usage: libreyolo-host predict model=FILE.pt source=IMAGE|FOLDER|'GLOB' [options]\n\n";
    print_options(core::config::predict_options());
  } else if (name == "bench") {
    print_bench_help();
  } else if (name == "profile") {
    return run_profile({"help"});
  } else {
    for (const auto& c : commands()) {
      if (name == c.name) {
        std::cout << c.name << ": " << c.summary << "\n";
        return kExitOk;
      }
    }
    throw core::Error("no help for '" + name + "'", "it is not a command",
                      "run 'libreyolo-host help' for the list");
  }
  return kExitOk;
}

}  // namespace libreyolo::app

// `libreyolo-host help [COMMAND]`.

#include <iostream>

#include "commands.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/error.hpp"
#include "table_printer.hpp"

namespace libreyolo::app {
namespace {

void print_options(const core::config::OptionTable& table) {
  TablePrinter printer({"option", "default", "type", "meaning"});
  for (const auto& spec : table.specs()) {
    printer.add_row({spec.name, spec.default_value.empty() ? "-" : spec.default_value,
                     core::config::describe_type(spec), spec.help});
  }
  printer.print(std::cout, "  ");
  if (!table.aliases().empty()) {
    std::cout << "\n  aliases:";
    for (const auto& [alias, target] : table.aliases()) std::cout << " " << alias << "=" << target;
    std::cout << "\n";
  }
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

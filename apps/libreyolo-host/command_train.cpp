// `libreyolo-host train`: resolves every option (so bad input fails here, before any work),
// then trains. The training loop lands with the trainer issue; until then this command
// validates and reports, and says plainly that training is not built yet.

#include <iostream>

#include "commands.hpp"
#include "host_setup.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::app {

int run_train(const Args& args) {
  const auto run = resolve_model_run("train", args, core::config::train_options());
  std::cout << "model " << run.family->info.name << run.size << " (" << run.family->info.display_name
            << ", " << run.family->file.filename().string() << "); options not at their default:\n";
  print_option_summary(run.options);
  std::cout.flush();  // before the log line on stderr
  core::log::error("training is not built yet in this version of libreyolo-host: the options "
                   "above are valid, but no training loop exists to run them");
  return kExitNotBuiltYet;
}

}  // namespace libreyolo::app

// `libreyolo-host train`: resolves every option (so bad input fails here, before any work),
// prints what differs from the defaults and where it came from, then trains.

#include <iostream>

#include "commands.hpp"
#include "host_setup.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::app {

int run_train(const Args& args) {
  const auto run = resolve_model_run("train", args, core::config::train_options());
  std::cout << "model " << run.family->info.name << run.size << " (" << run.family->info.display_name
            << ", " << run.family->file.filename().string() << "); options not at their default:\n";
  print_option_summary(run.options);
  std::cout.flush();  // before the trainer's log lines on stderr

  const auto outcome = core::trainer::train(make_train_request(run));
  if (outcome.interrupted) return kExitInterrupted;
  std::cout << "results in " << outcome.run.root.string() << " (weights/best.pt, weights/last.pt, results.csv)\n";
  return kExitOk;
}

}  // namespace libreyolo::app

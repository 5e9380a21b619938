// `libreyolo-host train`: resolves every option into one checked TrainConfig (so bad input
// fails here, before any work), prints what differs from the defaults and where it came from,
// then trains: in this process, as one rank of a launcher's distributed run, or by starting one
// worker per GPU of device=0,1.

#include <iostream>

#include "commands.hpp"
#include "host_setup.hpp"
#include "rank_setup.hpp"
#include "resume_setup.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/trainer/resume_target.hpp"
#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::app {
namespace {

// resume= takes the run's own options (resume_setup.hpp); anything else resolves model= as given.
ModelRun resolve_train_run(const Args& args) {
  const auto& table = core::config::train_options();
  auto user = core::config::read_user_options(args, table);
  if (const auto resume = user.lookup("resume"); resume && core::trainer::resume_requested(*resume)) {
    apply_verbosity(user);
    return resolve_resumed_run(user, table);
  }
  return resolve_model_run("train", args, table);
}

}  // namespace

int run_train(const Args& args) {
  const auto run = resolve_train_run(args);
  auto request = make_train_request(run);
  take_rank_environment(request);
  const bool launcher = becomes_launcher(request), reports = main_rank(request);
  if (reports) {
    std::cout << "model " << run.family->info.name << run.size << " (" << run.family->info.display_name
              << ", " << run.family->file.filename().string() << "); options not at their default:\n";
    print_option_summary(request);
    std::cout.flush();  // before the trainer's log lines on stderr
  }
  // Several GPUs and no launcher around this process: become the launcher.
  if (launcher) return spawn_workers(request, {"train"}, args);

  const auto outcome = core::trainer::train(request);
  if (outcome.interrupted) return kExitInterrupted;
  // A failed save was logged with what is on disk instead (trainer.cpp): never report success.
  if (outcome.save_failed()) return kExitError;
  if (reports) {
    std::cout << "results in " << outcome.run.root.string() << " ("
              << core::trainer::describe_on_disk(outcome.checkpoints, outcome.run.root) << ", results.csv)\n";
  }
  return kExitOk;
}

}  // namespace libreyolo::app

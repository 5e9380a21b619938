// `libreyolo-host train`: resolves every option into one checked TrainConfig (so bad input
// fails here, before any work), prints what differs from the defaults and where it came from,
// then trains: in this process, as one rank of a launcher's distributed run, or by starting one
// worker per GPU of device=0,1.

#include <iostream>
#include <optional>

#include "commands.hpp"
#include "host_setup.hpp"
#include "resume_setup.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/device/device_choice.hpp"
#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/distributed/spawn_training.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/trainer/autobatch.hpp"
#include "libreyolo/core/trainer/launcher_handoff.hpp"
#include "libreyolo/core/trainer/resume_target.hpp"
#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::app {
namespace {

// `train device=0,1` without a launcher: probe autobatch here if asked (before any worker
// exists), then start one worker per GPU with the user's arguments as typed; the autobatch
// result reaches the workers as the launcher's decision (trainer/launcher_handoff.hpp).
int spawn_workers(const core::trainer::TrainRequest& request, const Args& args, const std::vector<int>& gpus) {
  std::optional<int> autobatch;
  if (request.config.batch < 0) {
    const auto per_gpu = core::trainer::probe_request_batch(
        request, torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(gpus.front())));
    autobatch = core::trainer::global_autobatch(per_gpu, static_cast<int>(gpus.size()), request.config.nbs);
    std::cout << "autobatch: global batch " << *autobatch << " (" << *autobatch / static_cast<int>(gpus.size())
              << " per GPU)\n";
  }
  const auto outcome = core::distributed::spawn_training(core::trainer::make_spawn_request(request, args, gpus, autobatch));
  if (outcome.exit_code != 0) return outcome.exit_code == kExitInterrupted ? kExitInterrupted : kExitError;
  std::cout << "results in " << outcome.run_folder.string()
            << " (rank 0: weights/best.pt, weights/last.pt, results.csv); logs of ranks >= 1 in "
            << outcome.log_dir.string() << "\n";
  return kExitOk;
}

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
  request.ranks = core::distributed::read_rank_environment();
  core::distributed::refuse_process_inside_worker(request.ranks);
  core::trainer::apply_launcher_decisions(request.config, request.ranks);
  const auto gpus = core::device::requested_gpus(request.config.device);
  const bool main_rank = !request.ranks || request.ranks->rank == 0;
  if (main_rank) {
    std::cout << "model " << run.family->info.name << run.size << " (" << run.family->info.display_name
              << ", " << run.family->file.filename().string() << "); options not at their default:\n";
    print_option_summary(request);
    std::cout.flush();  // before the trainer's log lines on stderr
  }
  // Several GPUs and no launcher around this process: become the launcher.
  if (!request.ranks && gpus.size() > 1) return spawn_workers(request, args, gpus);

  const auto outcome = core::trainer::train(request);
  if (outcome.interrupted) return kExitInterrupted;
  // A failed save was logged with what is on disk instead (trainer.cpp): never report success.
  if (outcome.save_failed()) return kExitError;
  if (main_rank) {
    std::cout << "results in " << outcome.run.root.string() << " ("
              << core::trainer::describe_on_disk(outcome.checkpoints, outcome.run.root) << ", results.csv)\n";
  }
  return kExitOk;
}

}  // namespace libreyolo::app

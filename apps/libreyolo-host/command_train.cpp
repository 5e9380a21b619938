// `libreyolo-host train`: resolves every option (so bad input fails here, before any work),
// prints what differs from the defaults and where it came from, then trains: in this process,
// as one rank of a launcher's distributed run, or by starting one worker per GPU of device=0,1.

#include <iostream>

#include "commands.hpp"
#include "host_setup.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/device/device_choice.hpp"
#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/distributed/spawn_training.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/trainer/autobatch.hpp"
#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::app {
namespace {

// The external-launcher command line equivalent to this one, for messages.
std::string torchrun_example(const Args& args, std::size_t gpus) {
  std::string line = "torchrun --nproc_per_node=" + std::to_string(gpus) + " --no-python libreyolo-host train";
  for (const auto& arg : args) line += " " + arg;
  return line;
}

// `arguments` with key=value set: an existing key=... is replaced (a key given twice is an error).
Args with_option(Args arguments, const std::string& key, const std::string& value) {
  for (auto& argument : arguments) {
    if (argument.rfind(key + "=", 0) == 0) {
      argument = key + "=" + value;
      return arguments;
    }
  }
  arguments.push_back(key + "=" + value);
  return arguments;
}

int spawn_workers(const ModelRun& run, const Args& args, const std::vector<int>& gpus) {
  core::distributed::SpawnRequest request;
  request.gpus = gpus;
  request.arguments = {"train"};
  request.arguments.insert(request.arguments.end(), args.begin(), args.end());
  request.batch = static_cast<int>(run.options.get_int("batch"));
  request.family = run.family->info.name;
  request.family_supports_spawn = run.family->policy.supports_spawn;
  request.launcher_example = torchrun_example(args, gpus.size());
  if (request.batch < 0) {
    // Autobatch before any worker exists: probe the first GPU here, hand the workers the result.
    const auto per_gpu = core::trainer::probe_request_batch(make_train_request(run),
                                                            torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(gpus.front())));
    request.batch = core::trainer::global_autobatch(per_gpu, static_cast<int>(gpus.size()),
                                                    static_cast<int>(run.options.get_int("nbs")));
    std::cout << "autobatch: global batch " << request.batch << " (" << request.batch / static_cast<int>(gpus.size())
              << " per GPU)\n";
    request.arguments = with_option(request.arguments, "batch", std::to_string(request.batch));
  }
  const auto outcome = core::distributed::spawn_training(request);
  if (outcome.exit_code != 0) return outcome.exit_code == kExitInterrupted ? kExitInterrupted : kExitError;
  std::cout << "results in " << outcome.run_folder.string()
            << " (rank 0: weights/best.pt, weights/last.pt, results.csv); logs of ranks >= 1 in "
            << outcome.log_dir.string() << "\n";
  return kExitOk;
}

}  // namespace

int run_train(const Args& args) {
  const auto run = resolve_model_run("train", args, core::config::train_options());
  const auto ranks = core::distributed::read_rank_environment();
  core::distributed::refuse_process_inside_worker(ranks);
  const auto gpus = core::device::requested_gpus(run.options.get_text("device"));
  const bool main_rank = !ranks || ranks->rank == 0;
  if (main_rank) {
    std::cout << "model " << run.family->info.name << run.size << " (" << run.family->info.display_name
              << ", " << run.family->file.filename().string() << "); options not at their default:\n";
    print_option_summary(run.options);
    std::cout.flush();  // before the trainer's log lines on stderr
  }
  // Several GPUs and no launcher around this process: become the launcher.
  if (!ranks && gpus.size() > 1) return spawn_workers(run, args, gpus);

  auto request = make_train_request(run);
  request.ranks = ranks;
  const auto outcome = core::trainer::train(request);
  if (outcome.interrupted) return kExitInterrupted;
  if (main_rank) {
    std::cout << "results in " << outcome.run.root.string() << " (weights/best.pt, weights/last.pt, results.csv)\n";
  }
  return kExitOk;
}

}  // namespace libreyolo::app

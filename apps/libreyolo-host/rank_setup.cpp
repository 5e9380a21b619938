#include "rank_setup.hpp"

#include <iostream>
#include <optional>

#include "libreyolo/core/device/device_choice.hpp"
#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/distributed/spawn_training.hpp"
#include "libreyolo/core/trainer/autobatch.hpp"
#include "libreyolo/core/trainer/launcher_handoff.hpp"

namespace libreyolo::app {

void take_rank_environment(core::trainer::TrainRequest& request) {
  request.ranks = core::distributed::read_rank_environment();
  core::distributed::refuse_process_inside_worker(request.ranks);
  core::trainer::apply_launcher_decisions(request.config, request.ranks);
}

bool becomes_launcher(const core::trainer::TrainRequest& request) {
  return !request.ranks && core::device::requested_gpus(request.config.device).size() > 1;
}

// The autobatch result reaches the workers as the launcher's decision (trainer/launcher_handoff.hpp).
int spawn_workers(const core::trainer::TrainRequest& request, const std::vector<std::string>& command, const Args& args) {
  const auto gpus = core::device::requested_gpus(request.config.device);
  std::optional<int> autobatch;
  if (request.config.batch < 0) {
    const auto per_gpu = core::trainer::probe_request_batch(
        request, torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(gpus.front())));
    autobatch = core::trainer::global_autobatch(per_gpu, static_cast<int>(gpus.size()), request.config.nbs);
    std::cout << "autobatch: global batch " << *autobatch << " (" << *autobatch / static_cast<int>(gpus.size())
              << " per GPU)\n";
  }
  const auto outcome =
      core::distributed::spawn_training(core::trainer::make_spawn_request(request, args, gpus, autobatch, command));
  if (outcome.exit_code != 0) return outcome.exit_code == kExitInterrupted ? kExitInterrupted : kExitError;
  std::cout << "results in " << outcome.run_folder.string()
            << " (rank 0: weights/best.pt, weights/last.pt, results.csv); logs of ranks >= 1 in "
            << outcome.log_dir.string() << "\n";
  return kExitOk;
}

bool main_rank(const core::trainer::TrainRequest& request) { return !request.ranks || request.ranks->rank == 0; }

}  // namespace libreyolo::app

#include "libreyolo/core/distributed/spawn_training.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "libreyolo/core/distributed/global_batch.hpp"
#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/distributed/worker_launcher.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::distributed {
namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> worker_decisions(const SpawnRequest& request) {
  if (!request.autobatched) return {};
  return {{kLauncherAutobatchVariable, std::to_string(request.batch)}};
}

void refuse_process_inside_worker(const std::optional<RankEnvironment>& env) {
  if (!env || !env->spawned_by_host) return;
  const char* launcher = std::getenv(kLauncherPidVariable);
  if (launcher && std::to_string(::getppid()) == launcher) return;  // the launcher's own worker
  refuse_spawn_inside_worker(env);
}

SpawnOutcome spawn_training(const SpawnRequest& request) {
  refuse_spawn_inside_worker(read_rank_environment());
  const auto world = std::to_string(request.gpus.size());
  if (!request.family_supports_spawn) {
    throw Error("family " + request.family + " does not support starting one worker per GPU itself",
                "its plugin declares that automatic multi-GPU spawning is not supported (Policy::supports_spawn)",
                "start one process per GPU with an external launcher instead: " + request.launcher_example);
  }
  per_rank_batch(request.batch, static_cast<int>(request.gpus.size()));  // throws with the nearest valid batches

  // A private folder for this launch: the ranks' logs and rank 0's answer.
  auto folder = std::filesystem::temp_directory_path() / ("libreyolo-ddp-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const auto run_file = folder / "run_folder.txt";
  std::filesystem::remove(run_file);
  ::setenv(kRunFolderFileVariable, run_file.c_str(), 1);  // inherited by the workers
  ::setenv(kLauncherPidVariable, std::to_string(::getpid()).c_str(), 1);
  ::unsetenv(kLauncherAutobatchVariable);  // only this launch's decisions reach its workers
  const auto decisions = worker_decisions(request);
  for (const auto& [name, value] : decisions) ::setenv(name.c_str(), value.c_str(), 1);

  WorkerPlan plan;
  plan.executable = this_executable();
  plan.arguments = request.arguments;
  plan.devices = request.gpus;
  plan.log_dir = folder;
  const auto launched = launch_workers(plan);
  ::unsetenv(kRunFolderFileVariable);
  ::unsetenv(kLauncherPidVariable);
  for (const auto& decision : decisions) ::unsetenv(decision.first.c_str());

  SpawnOutcome outcome;
  outcome.exit_code = launched.exit_code;
  outcome.log_dir = folder;
  outcome.run_folder = read_text(run_file);
  if (launched.exit_code != 0) {
    log::error(launched.failed_rank ? "multi-GPU training failed: " : "multi-GPU training stopped: ", launched.failure);
    if (launched.failed_rank && *launched.failed_rank > 0) {
      log::error("rank ", *launched.failed_rank, "'s full output: ", (folder / ("rank" + std::to_string(*launched.failed_rank) + ".log")).string());
    }
  }
  return outcome;
}

}  // namespace libreyolo::core::distributed

#pragma once
// Where this process stands in a distributed run, as its launcher described it: torchrun's
// variables (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) plus the ones the host's
// own launcher adds (launch_workers in worker_launcher.hpp, spawn_training.hpp). No LibTorch here: the launcher
// and its test tool read this too.

#include <functional>
#include <optional>
#include <string>

namespace libreyolo::core::distributed {

// Set to 1 by launch_workers in every worker it starts: the recursion guard's evidence.
inline constexpr const char* kSpawnedWorkerVariable = "LIBREYOLO_HOST_SPAWNED_WORKER";
// The CUDA index launch_workers gave this rank (absent under an external launcher, where the
// trainer takes cuda:LOCAL_RANK).
inline constexpr const char* kWorkerDeviceVariable = "LIBREYOLO_HOST_WORKER_DEVICE";

// Set by spawn_training when the user passed batch=-1: the global batch the launcher's
// autobatch probe chose. The workers keep the user's arguments (batch=-1) and take the
// launcher's decision from here (trainer::apply_launcher_decisions).
inline constexpr const char* kLauncherAutobatchVariable = "LIBREYOLO_HOST_AUTOBATCH";

struct RankEnvironment {
  int rank = 0;
  int local_rank = 0;
  int world_size = 1;
  std::string master_addr;
  int master_port = 0;  // 0 only when world_size is 1 and MASTER_PORT is unset
  bool spawned_by_host = false;
  std::optional<int> worker_device;
  std::optional<int> launcher_autobatch;  // kLauncherAutobatchVariable
};

// nullopt when neither RANK nor WORLD_SIZE is set: a plain single-process run. Throws
// core::Error for a partial or invalid set, naming the variable, its value and what a launcher
// must set. An empty value counts as unset (`RANK= cmd` is how a shell clears one).
// Defaults: LOCAL_RANK = RANK; with WORLD_SIZE 1, MASTER_ADDR = 127.0.0.1 and MASTER_PORT = 0
// (no peer to meet); with WORLD_SIZE > 1 both are required.
std::optional<RankEnvironment> read_rank_environment();
std::optional<RankEnvironment> read_rank_environment(
    const std::function<const char*(const char*)>& getenv);

// The recursion guard: throws core::Error when `env` says this process is a worker that
// launch_workers started, because asking it to spawn again would recurse.
void refuse_spawn_inside_worker(const std::optional<RankEnvironment>& env);

}  // namespace libreyolo::core::distributed

#pragma once
// `libreyolo-host train device=0,1` without a launcher around it (docs/design.md#multi-gpu-training): check
// what can be checked before any worker exists, start one worker per GPU (this program, same
// arguments, a rank environment), wait, and report rank 0's run folder or the rank that failed.
// Each worker then takes the ordinary single-device path with its rank set. The workers'
// arguments are the user's, untouched: what the launcher decided for them (the autobatch
// result) travels in their environment (worker_decisions).

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace libreyolo::core::distributed {

struct RankEnvironment;

// Set by spawn_training for its workers: rank 0 writes its run folder's path into this file.
inline constexpr const char* kRunFolderFileVariable = "LIBREYOLO_HOST_RUN_FOLDER_FILE";
// Set by spawn_training for its workers: the launcher's process id. A process that carries a
// worker's environment but is not the launcher's child was started from inside a worker.
inline constexpr const char* kLauncherPidVariable = "LIBREYOLO_HOST_LAUNCHER_PID";

struct SpawnRequest {
  std::vector<int> gpus;               // more than one
  std::vector<std::string> arguments;  // the worker's argv[1..]: "train", then the user's arguments
  int batch = 16;                      // the global batch: the user's, or what autobatch chose
  bool autobatched = false;            // batch came from the launcher's probe (the user passed batch=-1)
  std::string family;                  // for messages
  bool family_supports_spawn = true;
  std::string launcher_example;        // the torchrun command line to suggest when spawning is refused
};

struct SpawnOutcome {
  int exit_code = 0;                // 0 when every rank finished
  std::filesystem::path run_folder; // rank 0's, when it said
  std::filesystem::path log_dir;    // where ranks >= 1 logged
};

// The environment variables that carry the launcher's decisions to every worker: the global
// batch under kLauncherAutobatchVariable when it was autobatched; none otherwise.
std::vector<std::pair<std::string, std::string>> worker_decisions(const SpawnRequest& request);

// Throws core::Error before starting anything when the run cannot work: called from inside a
// spawned worker (the recursion guard), a family that does not allow spawning, a global batch
// that does not divide by the number of GPUs. A failed rank is reported (rank, error, log) and
// shows in exit_code.
SpawnOutcome spawn_training(const SpawnRequest& request);

// The recursion guard for everything a worker may start: a program run from inside a spawned
// worker inherits its rank environment and would join the run as a second copy of that rank (or
// spawn workers of its own). Throws core::Error unless `env` is absent, not from spawn_training,
// or this process is the launcher's own child.
void refuse_process_inside_worker(const std::optional<RankEnvironment>& env);

}  // namespace libreyolo::core::distributed

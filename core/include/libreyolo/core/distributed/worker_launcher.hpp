#pragma once
// The multi-GPU launcher: one worker process per GPU, each the same program with the same
// arguments and a rank environment (rank_environment.hpp), supervised until every one has
// exited. Process supervision only: what a worker does with its rank is the trainer's business.
//
// What launch_workers guarantees:
// - workers die with the launcher (PR_SET_PDEATHSIG), so a killed launcher leaves no orphans;
// - the first rank to fail stops the rest (SIGTERM, stop_grace, SIGKILL): one dead rank would
//   otherwise leave its peers blocked in a collective until the process group's timeout;
// - every worker is reaped before it returns;
// - Ctrl-C reaches the workers from the terminal (same process group) while the launcher
//   outlives them, so they can save their checkpoints; a second Ctrl-C stops them.
// One launch at a time per process: the Ctrl-C bookkeeping is process-wide.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace libreyolo::core::distributed {

struct WorkerPlan {
  std::filesystem::path executable;      // usually this_executable()
  std::vector<std::string> arguments;    // argv[1..], given to every worker unchanged
  std::vector<int> devices;              // one CUDA index per rank; world size = devices.size()
  std::string master_addr = "127.0.0.1";
  int master_port = 0;                   // 0: pick_free_port()
  std::filesystem::path log_dir;         // ranks >= 1 write stdout+stderr to log_dir/rank<r>.log
  std::chrono::milliseconds stop_grace{10000};  // SIGTERM, wait this long, then SIGKILL
};

struct LaunchOutcome {
  int exit_code = 0;               // 0: every rank exited 0; else the failed rank's code, 128+signal, or 130
  std::optional<int> failed_rank;  // the first rank seen to fail
  std::string failure;             // what happened to that rank, then its last output lines; or "interrupted"
};

// A TCP port that was free on 127.0.0.1 a moment ago (bound to port 0, read back, closed).
// Another process may take it before rank 0 binds it; the window is short on a training box.
int pick_free_port();

// The path of the running program (/proc/self/exe), what workers usually run.
std::filesystem::path this_executable();

// Starts one worker per plan.devices entry and waits for all of them. Rank 0's output is
// forwarded live to this process's stdout/stderr; ranks >= 1 write to their log files.
// Throws core::Error before starting anything for an unusable plan (no devices, a device listed
// twice, ranks >= 1 without a log folder, a log folder that cannot be created). Everything that
// happens to the workers, including a program that cannot be executed, is in the outcome.
LaunchOutcome launch_workers(const WorkerPlan& plan);

}  // namespace libreyolo::core::distributed

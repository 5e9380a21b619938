#pragma once
// Starting the prepared workers and watching them until every one is reaped: the first failure
// stops the rest, Ctrl-C lets them finish (see worker_launcher.hpp for the guarantees).

#include <chrono>
#include <filesystem>
#include <vector>

#include "libreyolo/core/distributed/worker_launcher.hpp"
#include "unique_fd.hpp"
#include "worker_process.hpp"

namespace libreyolo::core::distributed {

struct WorkerSpec {
  int rank = 0;
  int device = 0;
  WorkerCommand command;
  std::filesystem::path log_file;  // ranks >= 1; rank 0 (empty) is forwarded to our stdout/stderr
  UniqueFd log_fd;                 // open on log_file
};

LaunchOutcome supervise_workers(std::vector<WorkerSpec> workers, std::chrono::milliseconds stop_grace);

}  // namespace libreyolo::core::distributed

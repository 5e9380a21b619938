#pragma once
// Starting one worker process. The child runs only async-signal-safe calls between fork and
// execve: the launcher may have other threads, a fork copies only the calling one, and a lock
// another thread held (malloc's, the logger's) would stay locked forever in the child. So every
// string and array the child needs is built here, before the fork.

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace libreyolo::core::distributed {

struct WorkerCommand {
  std::vector<std::string> argv;         // argv[0] is the program's path, run as is (no PATH search)
  std::vector<std::string> environment;  // NAME=value
};

// `parent` (an environ-style array) with every NAME of `overrides` replaced or added.
std::vector<std::string> worker_environment(const char* const* parent,
                                            const std::vector<std::pair<std::string, std::string>>& overrides);

struct StartedWorker {
  pid_t pid = -1;           // valid when failed_step is empty
  std::string failed_step;  // e.g. "execve(/path/to/program)"; the child, if any, is already reaped
  int error = 0;            // its errno
};

// Forks and executes `command` with `stdout_fd` and `stderr_fd` as the worker's 1 and 2. Returns
// once the program runs (or could not be run: the child reports its errno through a pipe that
// execve closes, so a missing program is known here instead of as a mysterious exit code).
// The worker gets SIGTERM when the calling thread exits (PR_SET_PDEATHSIG).
StartedWorker start_worker(const WorkerCommand& command, int stdout_fd, int stderr_fd);

}  // namespace libreyolo::core::distributed

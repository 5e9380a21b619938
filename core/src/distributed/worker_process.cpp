#include "worker_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "unique_fd.hpp"

namespace libreyolo::core::distributed {
namespace {

// What the child tells the parent through the error pipe when it cannot become the worker.
enum class ChildStep : int { death_signal = 1, launcher_gone, redirect, execute };
struct ChildReport {
  ChildStep step;
  int error;
};

constexpr int kCouldNotExecute = 127;  // the shell's "command not found"

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (const std::string& s : strings) result.push_back(const_cast<char*>(s.c_str()));
  result.push_back(nullptr);
  return result;
}

[[noreturn]] void child_fails(int report_fd, ChildStep step) {
  const ChildReport report{step, errno};
  [[maybe_unused]] const ssize_t ignored = ::write(report_fd, &report, sizeof report);
  ::_exit(kCouldNotExecute);
}

// Runs in the child, async-signal-safe calls only (see the header).
[[noreturn]] void become_worker(char* const argv[], char* const envp[], int stdout_fd, int stderr_fd,
                                pid_t launcher, int report_fd) {
  // A worker must not outlive its launcher: nobody would stop it when a peer fails.
  if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) child_fails(report_fd, ChildStep::death_signal);
  // The launcher may have died before prctl took effect; then the signal will never come.
  if (::getppid() != launcher) {
    errno = ESRCH;
    child_fails(report_fd, ChildStep::launcher_gone);
  }
  if (::dup2(stdout_fd, STDOUT_FILENO) < 0 || ::dup2(stderr_fd, STDERR_FILENO) < 0) {
    child_fails(report_fd, ChildStep::redirect);
  }
  // execve keeps the signal mask and ignored signals. The launcher's thread may block signals,
  // and a host that ignores SIGPIPE would otherwise pass that on to a worker that expects the
  // default.
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  ::execve(argv[0], argv, envp);
  child_fails(report_fd, ChildStep::execute);
}

std::string describe(ChildStep step, const std::string& program) {
  switch (step) {
    case ChildStep::death_signal: return "prctl(PR_SET_PDEATHSIG)";
    case ChildStep::launcher_gone: return "the launcher exited during the start";
    case ChildStep::redirect: return "redirecting its output (dup2)";
    case ChildStep::execute: break;
  }
  return "execve(" + program + ")";
}

void reap(pid_t pid) {
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

std::vector<std::string> worker_environment(const char* const* parent,
                                            const std::vector<std::pair<std::string, std::string>>& overrides) {
  const auto overridden = [&](const std::string& entry) {
    for (const auto& [name, value] : overrides) {
      if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=') {
        return true;
      }
    }
    return false;
  };
  std::vector<std::string> result;
  for (const char* const* entry = parent; entry != nullptr && *entry != nullptr; ++entry) {
    if (!overridden(*entry)) result.emplace_back(*entry);
  }
  for (const auto& [name, value] : overrides) result.push_back(name + "=" + value);
  return result;
}

StartedWorker start_worker(const WorkerCommand& command, int stdout_fd, int stderr_fd) {
  const std::vector<char*> argv = pointers(command.argv);
  const std::vector<char*> envp = pointers(command.environment);
  int report_pipe[2];
  if (::pipe2(report_pipe, O_CLOEXEC) != 0) return {-1, "pipe2", errno};
  UniqueFd report_read(report_pipe[0]);
  UniqueFd report_write(report_pipe[1]);

  const pid_t launcher = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return {-1, "fork", errno};
  if (pid == 0) become_worker(argv.data(), envp.data(), stdout_fd, stderr_fd, launcher, report_write.get());

  report_write.reset();  // the read below ends at EOF once execve closed the child's copy
  ChildReport report{};
  ssize_t got = 0;
  do {
    got = ::read(report_read.get(), &report, sizeof report);
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(sizeof report)) return {pid, {}, 0};  // the program is running
  reap(pid);
  return {-1, describe(report.step, command.argv.front()), report.error};
}

}  // namespace libreyolo::core::distributed

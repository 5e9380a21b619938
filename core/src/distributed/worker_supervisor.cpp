#include "worker_supervisor.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "worker_output.hpp"

namespace libreyolo::core::distributed {
namespace {

using Clock = std::chrono::steady_clock;

// How often exits are checked when rank 0 is quiet: prompt enough that the other ranks are
// stopped before they block in a collective for long, cheap enough to be invisible.
constexpr std::chrono::milliseconds kPollInterval{50};
constexpr int kInterruptedExitCode = 130;  // 128 + SIGINT, what the trainer exits with on Ctrl-C

std::atomic<int> interrupts{0};
void count_interrupt(int) { interrupts.fetch_add(1); }

// Ctrl-C while workers run. The terminal sends SIGINT to the whole foreground process group,
// workers included: they finish their step and save, so the launcher must outlive them rather
// than die on the spot. A handler, not SIG_IGN: an ignored signal stays ignored across execve
// and the workers would never see Ctrl-C; a handled one is back to the default in them.
// A launcher started with SIGINT ignored (a background job) leaves it ignored, as its shell meant.
class InterruptWatch {
 public:
  InterruptWatch() {
    interrupts = 0;
    struct sigaction current {};
    ::sigaction(SIGINT, nullptr, &current);
    if (current.sa_handler == SIG_IGN) return;
    struct sigaction action {};
    action.sa_handler = &count_interrupt;
    ::sigemptyset(&action.sa_mask);  // no SA_RESTART: poll() returns early, the loop looks at once
    installed_ = ::sigaction(SIGINT, &action, &previous_) == 0;
  }
  ~InterruptWatch() {
    if (installed_) ::sigaction(SIGINT, &previous_, nullptr);
  }
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  static int count() { return interrupts.load(); }

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

std::string signal_name(int signal) {
  const char* abbreviation = ::sigabbrev_np(signal);
  return abbreviation != nullptr ? std::string("SIG") + abbreviation : "unknown signal";
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  const int signal = WTERMSIG(status);
  return "was killed by signal " + std::to_string(signal) + " (" + signal_name(signal) + ")" +
         (WCOREDUMP(status) ? ", core dumped" : "");
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

bool interrupt_exit(int status) {
  return (WIFEXITED(status) && WEXITSTATUS(status) == kInterruptedExitCode) ||
         (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
}

struct Worker {
  WorkerSpec spec;
  pid_t pid = -1;
  bool running = false;
};

struct Failure {
  int rank;
  std::string what;  // "rank 1 (GPU 1) exited with code 3"
  int exit_code;
};

class Supervisor {
 public:
  Supervisor(std::vector<WorkerSpec> specs, std::chrono::milliseconds stop_grace) : stop_grace_(stop_grace) {
    for (WorkerSpec& spec : specs) workers_.push_back({std::move(spec)});
  }

  LaunchOutcome run() {
    start_all();
    while (any_running()) {
      output_.pump(kPollInterval);
      // The terminal gave the workers a second Ctrl-C too; this makes sure they go.
      if (InterruptWatch::count() >= 2 && !stop_deadline_) begin_stop();
      reap_exited();
      kill_after_grace();
    }
    output_.drain();
    return outcome();
  }

 private:
  static std::string name(const Worker& worker) {
    return "rank " + std::to_string(worker.spec.rank) + " (GPU " + std::to_string(worker.spec.device) + ")";
  }

  void start_all() {
    for (Worker& worker : workers_) {
      if (!start(worker)) return;  // the rest would wait for a peer that never comes
    }
  }

  // Rank 0 writes into pipes that output_ forwards; the others into their log file.
  bool start(Worker& worker) {
    UniqueFd out_write, err_write;
    if (worker.spec.rank == 0) open_forwarding(out_write, err_write);
    const int out_fd = worker.spec.rank == 0 ? out_write.get() : worker.spec.log_fd.get();
    const int err_fd = worker.spec.rank == 0 ? err_write.get() : worker.spec.log_fd.get();
    const StartedWorker started = start_worker(worker.spec.command, out_fd, err_fd);
    worker.spec.log_fd.reset();  // the worker has its copy; ours would only keep the file open
    if (!started.failed_step.empty()) {
      record_failure(worker, name(worker) + " could not be started: " + started.failed_step + ": " +
                                 std::strerror(started.error),
                     127);
      return false;
    }
    worker.pid = started.pid;
    worker.running = true;
    return true;
  }

  void open_forwarding(UniqueFd& out_write, UniqueFd& err_write) {
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw_pipe_error();
    UniqueFd out_read(out[0]);
    out_write = UniqueFd(out[1]);
    if (::pipe2(err, O_CLOEXEC) != 0) throw_pipe_error();
    output_ = ForwardedOutput(std::move(out_read), UniqueFd(err[0]));
    err_write = UniqueFd(err[1]);
  }

  [[noreturn]] static void throw_pipe_error() {
    throw Error("could not create the pipes for rank 0's output", std::strerror(errno),
                "close some files or raise the open-file limit (ulimit -n), then start again");
  }

  bool any_running() const {
    for (const Worker& worker : workers_) {
      if (worker.running) return true;
    }
    return false;
  }

  void reap_exited() {
    for (Worker& worker : workers_) {
      if (!worker.running) continue;
      int status = 0;
      const pid_t result = ::waitpid(worker.pid, &status, WNOHANG);
      if (result == 0 || (result < 0 && errno == EINTR)) continue;
      worker.running = false;
      if (result < 0) {
        // Only possible when someone else collects our children (SIGCHLD set to SIG_IGN).
        record_failure(worker, name(worker) + " vanished: its exit status was collected elsewhere", 1);
      } else {
        on_exit(worker, status);
      }
    }
  }

  void on_exit(const Worker& worker, int status) {
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
    if (InterruptWatch::count() > 0 && interrupt_exit(status)) {
      interrupted_ = true;  // saved and stopped as asked: the others are still saving, leave them be
      return;
    }
    record_failure(worker, name(worker) + " " + describe_exit(status), exit_code_of(status));
  }

  // Only the first failure counts; exits caused by our own stop are its consequences.
  void record_failure(const Worker& worker, std::string what, int exit_code) {
    if (failure_ || stop_deadline_) return;
    log::error(what, any_running() ? ": stopping the other ranks" : "");
    failure_ = Failure{worker.spec.rank, std::move(what), exit_code};
    begin_stop();
  }

  void begin_stop() {
    if (!failure_) interrupted_ = true;
    stop_deadline_ = Clock::now() + stop_grace_;
    signal_running(SIGTERM);
  }

  void kill_after_grace() {
    if (!stop_deadline_ || killed_ || Clock::now() < *stop_deadline_ || !any_running()) return;
    log::warn("workers still running ", stop_grace_.count(), " ms after SIGTERM: sending SIGKILL");
    signal_running(SIGKILL);
    killed_ = true;
  }

  void signal_running(int signal) {
    for (const Worker& worker : workers_) {
      if (worker.running) ::kill(worker.pid, signal);
    }
  }

  LaunchOutcome outcome() {
    LaunchOutcome result;
    if (failure_) {
      result.exit_code = failure_->exit_code;
      result.failed_rank = failure_->rank;
      result.failure = failure_->what + last_lines(workers_[static_cast<std::size_t>(failure_->rank)]);
    } else if (interrupted_) {
      result.exit_code = kInterruptedExitCode;
      result.failure = "interrupted";
    }
    return result;
  }

  std::string last_lines(const Worker& worker) {
    const bool forwarded = worker.spec.rank == 0;
    if (worker.pid < 0) return "";  // never ran: nothing to show
    const std::vector<std::string> lines =
        forwarded ? output_.tail_lines() : read_log_tail(worker.spec.log_file);
    const std::string source = forwarded ? "" : " (" + worker.spec.log_file.string() + ")";
    if (lines.empty()) return "\nrank " + std::to_string(worker.spec.rank) + " printed nothing" + source;
    std::string text = "\nlast lines of rank " + std::to_string(worker.spec.rank) + source + ":";
    for (const std::string& line : lines) text += "\n  " + line;
    return text;
  }

  std::vector<Worker> workers_;
  std::chrono::milliseconds stop_grace_;
  ForwardedOutput output_{UniqueFd(), UniqueFd()};
  std::optional<Failure> failure_;
  std::optional<Clock::time_point> stop_deadline_;
  bool killed_ = false;
  bool interrupted_ = false;
};

}  // namespace

LaunchOutcome supervise_workers(std::vector<WorkerSpec> workers, std::chrono::milliseconds stop_grace) {
  InterruptWatch watch;  // before the first fork: no moment where Ctrl-C kills the launcher alone
  Supervisor supervisor(std::move(workers), stop_grace);
  return supervisor.run();
}

}  // namespace libreyolo::core::distributed

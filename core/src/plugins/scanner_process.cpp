// Runs libreyolo-plugin-scanner on one plugin file and watches it: its stdout (the record)
// and stderr (whatever the plugin prints) through pipes, a deadline, and how it ended.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "libreyolo/core/plugins/plugin_scan.hpp"

namespace libreyolo::core::plugins {
namespace {

struct Pipe {
  int read = -1, write = -1;
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  void close_read() { if (read >= 0) ::close(read); read = -1; }
  void close_write() { if (write >= 0) ::close(write); write = -1; }
  ~Pipe() { close_read(); close_write(); }
};

// In the child between fork and exec: async-signal-safe calls only. A scanner must not
// outlive the host (a hung plugin would spin forever), hence the parent-death signal. The
// host ignores SIGXFSZ and may block signals; the scanner starts with the defaults.
[[noreturn]] void become_scanner(const char* scanner, const char* plugin, const Pipe& record,
                                 const Pipe& output, const Pipe& failure) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  ::dup2(record.write, STDOUT_FILENO);
  ::dup2(output.write, STDERR_FILENO);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGXFSZ, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  char* const argv[] = {const_cast<char*>(scanner), const_cast<char*>(plugin), nullptr};
  ::execv(scanner, argv);
  const int error = errno;
  [[maybe_unused]] const ssize_t ignored = ::write(failure.write, &error, sizeof error);
  ::_exit(127);
}

// Reads what is there; false at end of file (or an error, which ends the stream too).
bool drain(int fd, std::string& into, std::size_t keep_last) {
  char buffer[4096];
  const ssize_t got = ::read(fd, buffer, sizeof buffer);
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (got <= 0) return false;
  into.append(buffer, static_cast<std::size_t>(got));
  if (into.size() > keep_last) into.erase(0, into.size() - keep_last);
  return true;
}

// The scanner's own start (the dynamic loader mapping LibTorch) may take this long on a busy
// machine before the plugin's timeout starts; past it, the scanner is broken, not the plugin.
constexpr double kStartLimit = 60;

// Collects both pipes until they close or the deadline passes; true when it passed. The
// deadline is the start limit until the record's first line arrives, then the plugin's timeout.
bool watch(Pipe& record, Pipe& output, double timeout_s, ScanProcessEnd& end) {
  using clock = std::chrono::steady_clock;
  const auto after = [](double s) {
    return clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(s));
  };
  end.started = false;
  end.timeout_s = std::max(kStartLimit, timeout_s);
  auto deadline = after(end.timeout_s);
  while (record.read >= 0 || output.read >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0) return true;
    pollfd fds[2] = {{record.read, POLLIN, 0}, {output.read, POLLIN, 0}};
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()) + 1);
    if (ready < 0 && errno != EINTR) return false;
    if (ready <= 0) continue;
    if (fds[0].revents && !drain(record.read, end.record, 1 << 16)) record.close_read();
    if (fds[1].revents && !drain(output.read, end.output_tail, 4096)) output.close_read();
    if (!end.started && end.record.find('\n') != std::string::npos) {
      end.started = true;
      end.timeout_s = timeout_s;
      deadline = after(timeout_s);
    }
  }
  return false;
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

std::optional<ScanProcessEnd> run_scanner(const std::filesystem::path& scanner,
                                          const std::filesystem::path& plugin, double timeout_s,
                                          std::string& error) {
  Pipe record, output, failure;
  if (!record.open() || !output.open() || !failure.open()) {
    error = std::string("pipe2: ") + std::strerror(errno);
    return std::nullopt;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    return std::nullopt;
  }
  if (pid == 0) become_scanner(scanner.c_str(), plugin.c_str(), record, output, failure);
  record.close_write();
  output.close_write();
  failure.close_write();
  int exec_error = 0;
  if (::read(failure.read, &exec_error, sizeof exec_error) == sizeof exec_error) {
    reap(pid);
    error = "cannot run " + scanner.string() + ": " + std::strerror(exec_error);
    return std::nullopt;
  }
  ScanProcessEnd end;
  if (watch(record, output, timeout_s, end)) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {  // it did end; a child of its holds the pipes
      end.wait_status = status;
      return end;
    }
    ::kill(pid, SIGKILL);
    end.timed_out = true;
  }
  end.wait_status = reap(pid);
  return end;
}

}  // namespace libreyolo::core::plugins

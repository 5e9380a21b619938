// launch_workers against a real worker program, tests/tools/ddp_test_worker.cpp, which plays a
// CPU rank that succeeds, fails, dies by a signal, hangs or waits for Ctrl-C on request.

#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <thread>

#include "../temp_dir.hpp"
#include "libreyolo/core/distributed/worker_launcher.hpp"
#include "libreyolo/core/error.hpp"
#include "support/test_paths.hpp"

extern char** environ;

using libreyolo::core::Error;
using namespace libreyolo::core::distributed;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

const std::filesystem::path kWorker = libreyolo::test_paths::ddp_worker();

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

WorkerPlan plan_for(const libreyolo::test::TempDir& dir, std::vector<std::string> arguments) {
  WorkerPlan plan;
  plan.executable = kWorker;
  plan.arguments = std::move(arguments);
  plan.devices = {0, 1};
  plan.log_dir = dir / "logs";  // does not exist yet: launch_workers creates it
  plan.stop_grace = 2s;
  return plan;
}

// True when launch_workers left no child behind, running or zombie (this binary forks nowhere else).
bool no_children_left() {
  int status = 0;
  return ::waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD;
}

bool wait_until(const std::function<bool()>& condition, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!condition()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// While it lives, workers orphaned by a killed launcher become this process's children instead
// of PID 1's, so the test can reap them and see how they died.
struct Subreaper {
  Subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }
  ~Subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
};

// The wait status of an orphan adopted by Subreaper; nullopt if it is still running after `limit`.
std::optional<int> reap_orphan(pid_t pid, std::chrono::seconds limit) {
  int status = 0;
  // ECHILD until the kernel has re-parented it to us.
  if (!wait_until([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, limit)) return std::nullopt;
  return status;
}

pid_t read_pid(const std::filesystem::path& file) {
  pid_t pid = -1;
  std::ifstream(file) >> pid;
  return pid;
}

// `ddp_test_worker supervise DIR MODE...` as a launcher of its own, in a new process group (as
// a shell starts a job), so the test can play the terminal's Ctrl-C on that group alone. Its
// output goes to DIR/launcher.out.
pid_t start_launcher(const libreyolo::test::TempDir& dir, const std::vector<std::string>& worker_mode) {
  std::vector<std::string> args = {kWorker.string(), "supervise", dir.path().string()};
  args.insert(args.end(), worker_mode.begin(), worker_mode.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  const std::string output = (dir / "launcher.out").string();
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, argv[0], &files, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
  REQUIRE(error == 0);
  return pid;
}

// The launcher's wait status; kills its whole group and fails the test if it takes over 60 s.
int wait_launcher(pid_t pid) {
  int status = 0;
  const bool exited = wait_until([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, 60s);
  if (!exited) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    FAIL("the launcher did not exit within 60 s");
  }
  return status;
}

}  // namespace

TEST_SUITE("distributed worker launcher") {

TEST_CASE("pick_free_port returns a port one can listen on") {
  const int port = pick_free_port();
  CHECK(port > 0);
  CHECK(port <= 65535);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  CHECK(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  CHECK(::listen(fd, 1) == 0);
  ::close(fd);
}

TEST_CASE("every rank exits 0: exit code 0, rank 1's output in its log") {
  const libreyolo::test::TempDir dir;
  WorkerPlan plan = plan_for(dir, {"ok"});
  plan.master_port = pick_free_port();
  const LaunchOutcome outcome = launch_workers(plan);
  CHECK(outcome.exit_code == 0);
  CHECK_FALSE(outcome.failed_rank.has_value());
  CHECK(outcome.failure.empty());
  CHECK(slurp(dir / "logs" / "rank1.log") == "rank 1 of 2 device 1 port " + std::to_string(plan.master_port) + "\n");
  CHECK_FALSE(std::filesystem::exists(dir / "logs" / "rank0.log"));  // rank 0 goes to our stdout
  CHECK(no_children_left());
}

TEST_CASE("port 0 picks a free port for the workers") {
  const libreyolo::test::TempDir dir;
  const LaunchOutcome outcome = launch_workers(plan_for(dir, {"ok"}));
  CHECK(outcome.exit_code == 0);
  const std::string log = slurp(dir / "logs" / "rank1.log");
  CHECK(log.find("rank 1 of 2 device 1 port ") == 0);
  CHECK(log.find("port 0\n") == std::string::npos);
}

TEST_CASE("a failing rank stops the others and is named with its last lines") {
  const libreyolo::test::TempDir dir;
  const auto start = Clock::now();
  const LaunchOutcome outcome = launch_workers(plan_for(dir, {"fail", "1"}));
  CHECK(Clock::now() - start < 60s);
  CHECK(outcome.exit_code == 3);
  CHECK(outcome.failed_rank == 1);
  CHECK(outcome.failure.find("rank 1 (GPU 1) exited with code 3") == 0);
  CHECK(outcome.failure.find("boom from rank 1") != std::string::npos);
  CHECK(outcome.failure.find("rank1.log") != std::string::npos);
  CHECK(no_children_left());
}

TEST_CASE("rank 0's failure report comes from its forwarded output") {
  const libreyolo::test::TempDir dir;
  const LaunchOutcome outcome = launch_workers(plan_for(dir, {"fail", "0"}));
  CHECK(outcome.exit_code == 3);
  CHECK(outcome.failed_rank == 0);
  CHECK(outcome.failure.find("rank 0 (GPU 0) exited with code 3") == 0);
  CHECK(outcome.failure.find("boom from rank 0") != std::string::npos);
  CHECK(no_children_left());
}

TEST_CASE("a rank that ignores SIGTERM is killed after stop_grace") {
  const libreyolo::test::TempDir dir;
  WorkerPlan plan = plan_for(dir, {"fail-stubborn", "1"});
  plan.stop_grace = 1s;
  const auto start = Clock::now();
  const LaunchOutcome outcome = launch_workers(plan);
  const auto elapsed = Clock::now() - start;
  CHECK(elapsed >= 1s);
  CHECK(elapsed < 60s);
  CHECK(outcome.failed_rank == 1);
  CHECK(outcome.exit_code == 3);
  CHECK(no_children_left());
}

TEST_CASE("a rank killed by a signal is reported with the signal's name") {
  const libreyolo::test::TempDir dir;
  const LaunchOutcome outcome = launch_workers(plan_for(dir, {"signal", "1"}));
  CHECK(outcome.exit_code == 128 + SIGKILL);
  CHECK(outcome.failed_rank == 1);
  CHECK(outcome.failure.find("rank 1 (GPU 1) was killed by signal 9 (SIGKILL)") == 0);
  CHECK(no_children_left());
}

TEST_CASE("a program that cannot be executed is a clear failure naming its path") {
  const libreyolo::test::TempDir dir;
  WorkerPlan plan = plan_for(dir, {"ok"});
  plan.executable = dir / "no-such-program";
  const LaunchOutcome outcome = launch_workers(plan);
  CHECK(outcome.exit_code == 127);
  CHECK(outcome.failed_rank == 0);
  CHECK(outcome.failure.find("rank 0 (GPU 0) could not be started") == 0);
  CHECK(outcome.failure.find(plan.executable.string()) != std::string::npos);
  CHECK(outcome.failure.find("No such file or directory") != std::string::npos);
  CHECK(no_children_left());
}

TEST_CASE("a spawned worker asked to spawn again refuses") {
  const libreyolo::test::TempDir dir;
  const LaunchOutcome outcome = launch_workers(plan_for(dir, {"spawn-again"}));
  CHECK(outcome.exit_code == 2);
  REQUIRE(outcome.failed_rank.has_value());
  CHECK(outcome.failure.find("spawn was requested from inside a spawned worker (rank " +
                             std::to_string(*outcome.failed_rank) + ")") != std::string::npos);
}

TEST_CASE("unusable plans are refused before anything starts") {
  const libreyolo::test::TempDir dir;
  WorkerPlan plan = plan_for(dir, {"ok"});
  plan.devices = {};
  CHECK_THROWS_WITH_AS(launch_workers(plan), doctest::Contains("no GPUs"), Error);
  plan.devices = {0, 1, 0};
  CHECK_THROWS_WITH_AS(launch_workers(plan), doctest::Contains("GPU 0 is listed twice"), Error);
  plan.devices = {0, 1};
  plan.log_dir.clear();
  CHECK_THROWS_WITH_AS(launch_workers(plan), doctest::Contains("no folder for the workers' logs"), Error);
  plan.log_dir = dir / "logs";
  plan.master_port = 70000;
  CHECK_THROWS_WITH_AS(launch_workers(plan), doctest::Contains("not a TCP port"), Error);
}

TEST_CASE("Ctrl-C: the launcher outlives its workers while they save, then reports 130") {
  const libreyolo::test::TempDir dir;
  const pid_t launcher = start_launcher(dir, {"wait-interrupt", dir.path().string()});
  const bool ready = wait_until([&] {
    return std::filesystem::exists(dir / "rank0.pid") && std::filesystem::exists(dir / "rank1.pid");
  }, 30s);
  if (!ready) ::kill(-launcher, SIGKILL);
  REQUIRE(ready);
  ::kill(-launcher, SIGINT);  // what the terminal does: the whole foreground group
  const int status = wait_launcher(launcher);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const std::string output = slurp(dir / "launcher.out");
  CHECK(output.find("rank 0 saving") != std::string::npos);
  CHECK(output.find("outcome: 130 interrupted") != std::string::npos);
  CHECK(slurp(dir / "rank1.log") == "rank 1 saving\n");
}

TEST_CASE("workers die with a launcher that is killed") {
  const libreyolo::test::TempDir dir;
  const Subreaper adopt_orphans;
  const pid_t launcher = start_launcher(dir, {"hang", dir.path().string()});
  const bool ready = wait_until([&] {
    return std::filesystem::exists(dir / "rank0.pid") && std::filesystem::exists(dir / "rank1.pid");
  }, 30s);
  if (!ready) ::kill(-launcher, SIGKILL);
  REQUIRE(ready);
  ::kill(launcher, SIGKILL);  // no chance to stop anyone: PR_SET_PDEATHSIG must
  wait_launcher(launcher);
  for (const char* file : {"rank0.pid", "rank1.pid"}) {
    const pid_t worker = read_pid(dir / file);
    const auto status = reap_orphan(worker, 10s);
    if (!status) ::kill(worker, SIGKILL);
    REQUIRE_MESSAGE(status.has_value(), file, " outlived its launcher");
    CHECK(WIFSIGNALED(*status));
    CHECK(WTERMSIG(*status) == SIGTERM);
  }
  CHECK(no_children_left());
}

}  // TEST_SUITE

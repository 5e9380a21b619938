// A stand-in worker for the launcher's unit tests (tests/unit/distributed): reads the rank
// environment launch_workers sets and misbehaves on request, on the CPU, in milliseconds.
//
//   ddp_test_worker ok                      every rank prints "rank R of W device D port P", exits 0
//   ddp_test_worker fail R                  rank R prints "boom from rank R" to stderr, exits 3; others sleep
//   ddp_test_worker fail-stubborn R         the same, but the others ignore SIGTERM (tests SIGKILL)
//   ddp_test_worker signal R                rank R SIGKILLs itself after ~200 ms; others sleep
//   ddp_test_worker hang [DIR]              every rank sleeps 120 s (writing DIR/rank<r>.pid first)
//   ddp_test_worker spawn-again             runs the recursion guard; prints its error, exits 2
//   ddp_test_worker wait-interrupt DIR      writes DIR/rank<r>.pid, waits for SIGINT, "saves", exits 130
//   ddp_test_worker supervise DIR MODE...   the launcher itself: runs MODE... on "GPUs" 0,1 with rank
//                                           logs in DIR, prints the outcome, exits with its code

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/distributed/worker_launcher.hpp"
#include "libreyolo/core/error.hpp"

namespace distributed = libreyolo::core::distributed;
using namespace std::chrono_literals;

namespace {

std::atomic<bool> interrupted{false};
void on_sigint(int) { interrupted = true; }

// Long enough that only the launcher's stop can end it within a test's time.
void sleep_long() { std::this_thread::sleep_for(120s); }

// Written aside and renamed, so a test that sees the file also sees the whole pid.
void write_pid_file(const std::string& dir, int rank) {
  const std::string file = dir + "/rank" + std::to_string(rank) + ".pid";
  std::ofstream(file + ".tmp") << ::getpid() << "\n";
  std::rename((file + ".tmp").c_str(), file.c_str());
}

int wait_for_interrupt(const std::string& dir, int rank) {
  struct sigaction action {};
  action.sa_handler = &on_sigint;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  write_pid_file(dir, rank);  // after the handler: the test interrupts once every pid file exists
  for (int i = 0; i < 1200 && !interrupted; ++i) std::this_thread::sleep_for(100ms);
  if (!interrupted) return 1;
  std::printf("rank %d saving\n", rank);
  std::fflush(stdout);
  std::this_thread::sleep_for(200ms);  // the checkpoint the launcher must wait for
  return 130;
}

int supervise(const std::string& dir, const std::vector<std::string>& worker_arguments) {
  distributed::refuse_spawn_inside_worker(distributed::read_rank_environment());
  distributed::WorkerPlan plan;
  plan.executable = distributed::this_executable();
  plan.arguments = worker_arguments;
  plan.devices = {0, 1};
  plan.log_dir = dir;
  plan.stop_grace = 2s;
  const distributed::LaunchOutcome outcome = distributed::launch_workers(plan);
  std::fprintf(stderr, "outcome: %d %s\n", outcome.exit_code, outcome.failure.c_str());
  return outcome.exit_code;
}

int run(const std::vector<std::string>& args) {
  const std::string mode = args.empty() ? "" : args[0];
  const std::string arg = args.size() > 1 ? args[1] : "";
  if (mode == "supervise") return supervise(arg, {args.begin() + 2, args.end()});

  const auto env = distributed::read_rank_environment();
  if (!env) {
    std::fprintf(stderr, "ddp_test_worker %s: no rank environment\n", mode.c_str());
    return 64;
  }
  const int rank = env->rank;
  // Only the fail and signal modes take a rank; for the others the argument is a folder.
  const auto chosen = [&] { return std::stoi(arg) == rank; };
  if (mode == "ok") {
    std::printf("rank %d of %d device %d port %d\n", rank, env->world_size, env->worker_device.value_or(-1),
                env->master_port);
    return 0;
  }
  if (mode == "fail" || mode == "fail-stubborn") {
    if (chosen()) {
      std::fprintf(stderr, "boom from rank %d\n", rank);
      return 3;
    }
    if (mode == "fail-stubborn") ::signal(SIGTERM, SIG_IGN);
    sleep_long();
    return 0;
  }
  if (mode == "signal") {
    if (chosen()) {
      std::this_thread::sleep_for(200ms);
      ::raise(SIGKILL);
    }
    sleep_long();
    return 0;
  }
  if (mode == "hang") {
    if (!arg.empty()) write_pid_file(arg, rank);
    sleep_long();
    return 0;
  }
  if (mode == "wait-interrupt") return wait_for_interrupt(arg, rank);
  if (mode == "spawn-again") {
    try {
      distributed::refuse_spawn_inside_worker(env);
    } catch (const libreyolo::core::Error& error) {
      std::fprintf(stderr, "%s\n", error.what());
      return 2;
    }
    return 0;
  }
  std::fprintf(stderr, "ddp_test_worker: unknown mode '%s'\n", mode.c_str());
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run({argv + 1, argv + argc});
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ddp_test_worker: %s\n", error.what());
    return 65;
  }
}

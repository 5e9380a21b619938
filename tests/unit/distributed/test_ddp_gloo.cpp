// Two real processes over Gloo on the CPU (the CI's multi-process check): tests/tools/ddp_check.cpp
// as both ranks, started by launch_workers. Each rank compares itself with a single-process run
// on the global batch: step-1 gradients, a 3-step loss trajectory, BatchNorm running statistics,
// accumulated gradients.
#include "../torch_doctest.hpp"

#include <fstream>
#include <sstream>

#include "../temp_dir.hpp"
#include "libreyolo/core/distributed/process_group.hpp"
#include "libreyolo/core/distributed/worker_launcher.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo::core::distributed;

TEST_CASE("distributed: two Gloo processes match one process on the global batch") {
  if (backend_for(torch::kCPU).empty()) {
    MESSAGE("skipped: this build has no Gloo (libgloo-dev missing at configure time)");
    return;
  }
  libreyolo::test::TempDir dir;
  WorkerPlan plan;
  plan.executable = libreyolo::test_paths::ddp_check();
  plan.devices = {0, 1};  // the ranks' nominal GPUs; ddp_check trains on the CPU
  plan.log_dir = dir.path();
  plan.stop_grace = std::chrono::seconds(2);
  const auto outcome = launch_workers(plan);
  std::ifstream rank1(dir.path() / "rank1.log");
  std::stringstream text;
  text << rank1.rdbuf();
  INFO("rank 1 said:\n" << text.str() << "\nfailure: " << outcome.failure);
  CHECK(outcome.exit_code == 0);
  for (const char* measure : {"step-1 gradients", "3-step loss trajectory", "BatchNorm running statistics",
                              "accumulated gradients"}) {
    CHECK(text.str().find(std::string("rank 1: ") + measure) != std::string::npos);
  }
}

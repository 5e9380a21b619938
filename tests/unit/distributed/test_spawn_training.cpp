// What `train device=0,1` refuses before it starts any worker.
#include <doctest/doctest.h>

#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/distributed/spawn_training.hpp"
#include "libreyolo/core/error.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::distributed;

namespace {

SpawnRequest two_gpus() {
  SpawnRequest request;
  request.gpus = {0, 1};
  request.arguments = {"train", "model=yolo9s", "device=0,1"};
  request.batch = 32;
  request.family = "yolo9";
  request.launcher_example = "torchrun --nproc_per_node=2 --no-python libreyolo-host train model=yolo9s device=0,1";
  return request;
}

}  // namespace

TEST_CASE("spawn: a family that does not allow spawning names the external-launcher command") {
  auto request = two_gpus();
  request.family_supports_spawn = false;
  CHECK_THROWS_WITH_AS(spawn_training(request),
                       doctest::Contains("torchrun --nproc_per_node=2 --no-python libreyolo-host train"), Error);
}

TEST_CASE("spawn: the global batch must divide by the number of GPUs, before any worker starts") {
  auto request = two_gpus();
  request.batch = 33;
  CHECK_THROWS_WITH_AS(spawn_training(request), doctest::Contains("Use batch=32 or batch=34."), Error);
}

TEST_CASE("spawn: a process that inherited a worker's environment is refused") {
  RankEnvironment worker;
  worker.rank = 1;
  worker.world_size = 2;
  worker.spawned_by_host = true;
  // This test process is nobody's spawned worker: LIBREYOLO_HOST_LAUNCHER_PID does not name
  // its parent, so it must be a program started from inside a worker.
  CHECK_THROWS_WITH_AS(refuse_process_inside_worker(worker),
                       doctest::Contains("spawn was requested from inside a spawned worker (rank 1)"), Error);
  worker.spawned_by_host = false;  // torchrun's ranks carry no marker: nothing to refuse
  CHECK_NOTHROW(refuse_process_inside_worker(worker));
  CHECK_NOTHROW(refuse_process_inside_worker(std::nullopt));
}

#include "../torch_doctest.hpp"

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/device/device_choice.hpp"

using libreyolo::core::Error;
using libreyolo::core::device::choose_device;

TEST_CASE("device= spellings") {
  CHECK(choose_device("cpu").is_cpu());
  CHECK(choose_device(" CPU ").is_cpu());
  CHECK(choose_device("auto").is_cuda() == torch::cuda::is_available());
  CHECK_THROWS_WITH_AS(choose_device("mps"), doctest::Contains("not available"), Error);
  CHECK_THROWS_WITH_AS(choose_device("0,1"), doctest::Contains("several GPUs"), Error);
  CHECK_THROWS_WITH_AS(choose_device("[0, 1]"), doctest::Contains("several GPUs"), Error);
  CHECK_THROWS_WITH_AS(choose_device("gpu"), doctest::Contains("is not a device"), Error);
  if (!torch::cuda::is_available()) {
    CHECK_THROWS_WITH_AS(choose_device("0"), doctest::Contains("no CUDA GPU"), Error);
    CHECK_THROWS_WITH_AS(choose_device("cuda:1"), doctest::Contains("use device=cpu"), Error);
  } else {
    CHECK(choose_device("cuda:0").index() == 0);
    CHECK(choose_device("0").is_cuda());
  }
}

TEST_CASE("device= lists name the GPUs of a multi-GPU run") {
  using libreyolo::core::device::requested_gpus;
  CHECK(requested_gpus("0").empty());
  CHECK(requested_gpus("cpu").empty());
  CHECK(requested_gpus("auto").empty());
  CHECK_THROWS_WITH_AS(requested_gpus("mps"), doctest::Contains("not available"), Error);
  CHECK_THROWS_WITH_AS(requested_gpus("x,0"), doctest::Contains("is not a device"), Error);
  const int count = torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
  if (count < 2) {
    CHECK_THROWS_WITH_AS(requested_gpus("[0, 1]"), doctest::Contains("does not exist"), Error);
  } else {
    CHECK(requested_gpus("[0, 1]") == std::vector<int>{0, 1});
    CHECK(requested_gpus("cuda:1,cuda:0") == std::vector<int>{1, 0});
    CHECK_THROWS_WITH_AS(requested_gpus("0,0"), doctest::Contains("twice"), Error);
  }
}

TEST_CASE("a rank's device: the launcher's GPU, cpu, or cuda:LOCAL_RANK") {
  using libreyolo::core::device::choose_rank_device;
  libreyolo::core::distributed::RankEnvironment ranks;
  ranks.rank = 1;
  ranks.local_rank = 1;
  ranks.world_size = 2;
  CHECK(choose_rank_device("cpu", ranks).is_cpu());
  ranks.worker_device = 3;  // spawned by `train`: the GPU it was given, whatever device= says
  CHECK(choose_rank_device("0,1", ranks) == torch::Device(torch::kCUDA, 3));
  ranks.worker_device.reset();
  if (!torch::cuda::is_available()) {
    CHECK(choose_rank_device("auto", ranks).is_cpu());
    CHECK_THROWS_WITH_AS(choose_rank_device("0,1", ranks), doctest::Contains("LOCAL_RANK=1"), Error);
  } else if (torch::cuda::device_count() > 1) {
    CHECK(choose_rank_device("0,1", ranks) == torch::Device(torch::kCUDA, 1));
  }
}

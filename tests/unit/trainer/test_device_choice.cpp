#include "../torch_doctest.hpp"

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/device_choice.hpp"

using libreyolo::core::Error;
using libreyolo::core::trainer::choose_device;

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

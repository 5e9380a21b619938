#include <doctest/doctest.h>

#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "libreyolo/core/trainer/trainer.hpp"

using namespace libreyolo::core;

namespace {
config::TrainConfig config_from(const std::vector<std::string>& args) {
  const auto table = config::train_options();
  return config::make_train_config(
      config::resolve_options(table, config::read_user_options(args, table), "test family", {{"momentum", 0.9}}));
}
}  // namespace

TEST_CASE("train config: typed values from every layer") {
  const auto c = config_from({"model=x", "data=d.yaml", "epochs=3", "mosaic_scale=0.5,1.5", "amp=false"});
  CHECK(c.epochs == 3);
  CHECK(c.momentum == doctest::Approx(0.9));
  CHECK(c.mosaic_scale.high == doctest::Approx(1.5));
  CHECK_FALSE(c.amp);
  CHECK(c.batch == 16);
}

TEST_CASE("train config: nonsense values are refused with the valid range") {
  CHECK_THROWS_WITH_AS(config_from({"data=d", "imgsz=100"}), doctest::Contains("a multiple of 32"), Error);
  CHECK_THROWS_WITH_AS(config_from({"data=d", "mosaic_prob=1.5"}), doctest::Contains("from 0 to 1"), Error);
  CHECK_THROWS_WITH_AS(config_from({"data=d", "batch=0"}), doctest::Contains("-1 for autobatch"), Error);
  CHECK_THROWS_WITH_AS(config_from({"data=d", "epochs=0"}), doctest::Contains("epochs=0 is out of range"), Error);
  CHECK_THROWS_WITH_AS(config_from({"model=x"}), doctest::Contains("train needs a dataset"), Error);
}

TEST_CASE("out of memory: the message names the batch and says what to lower") {
  const auto error = trainer::out_of_memory_error(32, 640, "cuda:0", "CUDA out of memory. Tried to allocate 2.00 GiB\nmore");
  const std::string message = error.what();
  CHECK(message.find("out of memory on cuda:0 at batch=32 imgsz=640") != std::string::npos);
  CHECK(message.find("Tried to allocate 2.00 GiB") != std::string::npos);
  CHECK(message.find("more") == std::string::npos);
  CHECK(message.find("batch=16") != std::string::npos);
}

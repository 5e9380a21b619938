#include <doctest/doctest.h>

#include <map>
#include <string>

#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/error.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::distributed;

namespace {

// read_rank_environment over a fixed set of variables instead of the process's.
std::optional<RankEnvironment> read(const std::map<std::string, std::string>& vars) {
  return read_rank_environment([&](const char* name) -> const char* {
    const auto found = vars.find(name);
    return found == vars.end() ? nullptr : found->second.c_str();
  });
}

const std::map<std::string, std::string> kTorchrunRank1 = {
    {"RANK", "1"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "10.0.0.5"}, {"MASTER_PORT", "29500"}};

std::map<std::string, std::string> with(std::map<std::string, std::string> vars, const std::string& name,
                                        const std::string& value) {
  vars[name] = value;
  return vars;
}

std::map<std::string, std::string> without(std::map<std::string, std::string> vars, const std::string& name) {
  vars.erase(name);
  return vars;
}

}  // namespace

TEST_SUITE("distributed rank environment") {

TEST_CASE("no launcher variables: a plain single-process run") {
  CHECK_FALSE(read({}).has_value());
  CHECK_FALSE(read({{"RANK", ""}, {"WORLD_SIZE", ""}}).has_value());  // RANK= clears it in a shell
  CHECK_FALSE(read({{kSpawnedWorkerVariable, "0"}}).has_value());
}

TEST_CASE("torchrun's full set") {
  const auto env = read(kTorchrunRank1);
  REQUIRE(env.has_value());
  CHECK(env->rank == 1);
  CHECK(env->local_rank == 1);
  CHECK(env->world_size == 2);
  CHECK(env->master_addr == "10.0.0.5");
  CHECK(env->master_port == 29500);
  CHECK_FALSE(env->spawned_by_host);
  CHECK_FALSE(env->worker_device.has_value());
}

TEST_CASE("what launch_workers adds: the spawned flag and the worker's GPU") {
  auto vars = with(kTorchrunRank1, kSpawnedWorkerVariable, "1");
  vars[kWorkerDeviceVariable] = "3";
  const auto env = read(vars);
  REQUIRE(env.has_value());
  CHECK(env->spawned_by_host);
  CHECK(env->worker_device == 3);
}

TEST_CASE("defaults: LOCAL_RANK follows RANK; a one-process world needs no master") {
  const auto env = read(without(kTorchrunRank1, "LOCAL_RANK"));
  REQUIRE(env.has_value());
  CHECK(env->local_rank == 1);

  const auto alone = read({{"RANK", "0"}, {"WORLD_SIZE", "1"}});
  REQUIRE(alone.has_value());
  CHECK(alone->master_addr == "127.0.0.1");
  CHECK(alone->master_port == 0);
}

TEST_CASE("a partial set names the missing variable") {
  CHECK_THROWS_WITH_AS(read({{"RANK", "1"}}), doctest::Contains("RANK=1 is set but WORLD_SIZE is not"), Error);
  CHECK_THROWS_WITH_AS(read({{"WORLD_SIZE", "2"}}), doctest::Contains("WORLD_SIZE=2 is set but RANK is not"), Error);
  CHECK_THROWS_WITH_AS(read(without(kTorchrunRank1, "MASTER_ADDR")), doctest::Contains("MASTER_ADDR is not"), Error);
  CHECK_THROWS_WITH_AS(read(without(kTorchrunRank1, "MASTER_PORT")), doctest::Contains("MASTER_PORT is not"), Error);
  CHECK_THROWS_WITH_AS(read({{kSpawnedWorkerVariable, "1"}}), doctest::Contains("RANK and WORLD_SIZE"), Error);
  // Every message says what a launcher sets.
  CHECK_THROWS_WITH_AS(read({{"RANK", "1"}}), doctest::Contains("torchrun --nproc_per_node=N"), Error);
}

TEST_CASE("invalid values name the variable and its value") {
  CHECK_THROWS_WITH_AS(read(with(kTorchrunRank1, "RANK", "2")), doctest::Contains("RANK=2 is out of range"), Error);
  CHECK_THROWS_WITH_AS(read(with(kTorchrunRank1, "RANK", "-1")), doctest::Contains("RANK=-1"), Error);
  CHECK_THROWS_WITH_AS(read(with(kTorchrunRank1, "LOCAL_RANK", "5")), doctest::Contains("LOCAL_RANK=5"), Error);
  CHECK_THROWS_WITH_AS(read(with(kTorchrunRank1, "WORLD_SIZE", "two")),
                       doctest::Contains("WORLD_SIZE=two is not a whole number"), Error);
  CHECK_THROWS_WITH_AS(read(with(kTorchrunRank1, "WORLD_SIZE", "0")), doctest::Contains("WORLD_SIZE=0"), Error);
  CHECK_THROWS_WITH_AS(read(with(kTorchrunRank1, "RANK", "1 ")), doctest::Contains("not a whole number"), Error);
  CHECK_THROWS_WITH_AS(read(with(kTorchrunRank1, "MASTER_PORT", "70000")),
                       doctest::Contains("MASTER_PORT=70000 is out of range"), Error);
  CHECK_THROWS_WITH_AS(read(with(kTorchrunRank1, "MASTER_PORT", "0")), doctest::Contains("MASTER_PORT=0"), Error);
  CHECK_THROWS_WITH_AS(read(with(kTorchrunRank1, kSpawnedWorkerVariable, "yes")),
                       doctest::Contains("LIBREYOLO_HOST_SPAWNED_WORKER=yes"), Error);
  CHECK_THROWS_WITH_AS(read(with(kTorchrunRank1, kWorkerDeviceVariable, "cuda:1")),
                       doctest::Contains("LIBREYOLO_HOST_WORKER_DEVICE=cuda:1"), Error);
}

TEST_CASE("the recursion guard refuses a spawn from inside a spawned worker") {
  CHECK_NOTHROW(refuse_spawn_inside_worker(std::nullopt));
  CHECK_NOTHROW(refuse_spawn_inside_worker(read(kTorchrunRank1)));  // an external launcher's rank: no spawn asked
  const auto worker = read(with(kTorchrunRank1, kSpawnedWorkerVariable, "1"));
  try {
    refuse_spawn_inside_worker(worker);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.what_happened() == "spawn was requested from inside a spawned worker (rank 1)");
    CHECK(error.why().find("single-device path") != std::string::npos);
    CHECK(error.what_to_do().find("torchrun --nproc_per_node=N --no-python libreyolo-host train") !=
          std::string::npos);
  }
}

}  // TEST_SUITE

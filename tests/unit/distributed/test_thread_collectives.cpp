// The in-process fake process group the distributed tests run on: it must sum, broadcast and
// meet like a real one, and fail loudly (not hang) when ranks disagree.

#include "../torch_doctest.hpp"

#include "libreyolo/core/error.hpp"
#include "thread_collectives.hpp"

using libreyolo::test::ThreadCollectives;
using libreyolo::test::ThreadWorld;

TEST_SUITE("distributed: thread collectives") {

TEST_CASE("all_reduce_sum, start_all_reduce_sum, broadcast and barrier across three ranks") {
  ThreadWorld world(3);
  std::vector<torch::Tensor> sums(3), started(3), broadcasts(3);
  world.run([&](int rank, ThreadCollectives& collectives) {
    CHECK(collectives.rank() == rank);
    CHECK(collectives.world_size() == 3);
    auto sum = torch::full({2, 2}, static_cast<float>(rank + 1));
    collectives.all_reduce_sum(sum);
    auto pending_value = torch::full({3}, static_cast<double>(10 * rank), torch::kDouble);
    collectives.start_all_reduce_sum(pending_value)->wait();
    auto value = torch::full({2}, static_cast<float>(rank));
    collectives.broadcast(value, 2);
    collectives.barrier();
    const auto r = static_cast<std::size_t>(rank);
    sums[r] = sum;
    started[r] = pending_value;
    broadcasts[r] = value;
  });
  for (std::size_t r = 0; r < 3; ++r) {
    CHECK(sums[r].equal(torch::full({2, 2}, 6.f)));
    CHECK(started[r].equal(torch::full({3}, 30.0, torch::kDouble)));
    CHECK(broadcasts[r].equal(torch::full({2}, 2.f)));
    const auto calls = world.rank(static_cast<int>(r))->calls();
    CHECK(calls.all_reduce == 1);
    CHECK(calls.start_all_reduce == 1);
    CHECK(calls.broadcast == 1);
    CHECK(calls.barrier == 1);
  }
}

TEST_CASE("ranks calling different collectives get an error naming both calls") {
  ThreadWorld world(2);
  try {
    world.run([](int rank, ThreadCollectives& collectives) {
      auto t = torch::zeros({rank + 1});
      collectives.all_reduce_sum(t);
    });
    FAIL("expected an error");
  } catch (const libreyolo::core::Error& error) {
    CHECK(std::string(error.what()).find("rank 1 called all_reduce_sum on [2]") != std::string::npos);
  }
}

TEST_CASE("a rank that fails or returns early aborts its peers instead of hanging") {
  ThreadWorld failing(2, std::chrono::seconds(30));
  CHECK_THROWS_WITH_AS(failing.run([](int rank, ThreadCollectives& collectives) {
                         if (rank == 1) throw std::runtime_error("rank one broke");
                         collectives.barrier();
                       }),
                       "rank one broke", std::runtime_error);

  ThreadWorld returning(2, std::chrono::seconds(30));
  CHECK_THROWS_AS(returning.run([](int rank, ThreadCollectives& collectives) {
                    if (rank == 0) collectives.barrier();
                  }),
                  libreyolo::core::Error);

  ThreadWorld slow(2, std::chrono::milliseconds(50));
  CHECK_THROWS_AS(slow.run([](int rank, ThreadCollectives& collectives) {
                    if (rank == 0) collectives.barrier();
                    else std::this_thread::sleep_for(std::chrono::milliseconds(500));
                  }),
                  libreyolo::core::Error);
}

}  // TEST_SUITE

// distributed::mean_over_ranks (rank_mean.hpp): what the trainer reports once an epoch under
// several ranks (the epoch's losses) is the mean of every rank's value, on every rank, in the
// value's own device; one rank's value is its own.
#include "../torch_doctest.hpp"

#include "libreyolo/core/distributed/rank_mean.hpp"
#include "thread_collectives.hpp"

using libreyolo::test::ThreadCollectives;
using libreyolo::test::ThreadWorld;

TEST_CASE("mean over ranks: every rank gets the mean of the ranks' values, and its input is left as it was") {
  ThreadWorld world(3);
  std::vector<torch::Tensor> inputs(3), means(3);
  world.run([&](int rank, ThreadCollectives& collectives) {
    const auto r = static_cast<std::size_t>(rank);
    inputs[r] = torch::tensor({1.0f, 10.0f}) * static_cast<float>(rank + 1);  // ranks: [1, 10], [2, 20], [3, 30]
    means[r] = libreyolo::core::distributed::mean_over_ranks(collectives, inputs[r]);
  });
  for (std::size_t r = 0; r < 3; ++r) {
    CAPTURE(r);
    CHECK(torch::allclose(means[r], torch::tensor({2.0f, 20.0f})));
    CHECK(torch::equal(inputs[r], torch::tensor({1.0f, 10.0f}) * static_cast<float>(r + 1)));
    CHECK(world.rank(static_cast<int>(r))->calls().all_reduce == 1);
  }
}

TEST_CASE("mean over ranks: one rank's value is its own, with no collective") {
  ThreadWorld world(1);
  torch::Tensor mean;
  world.run([&](int, ThreadCollectives& collectives) {
    mean = libreyolo::core::distributed::mean_over_ranks(collectives, torch::tensor({4.0f, 5.0f}));
  });
  CHECK(torch::equal(mean, torch::tensor({4.0f, 5.0f})));
  CHECK(world.rank(0)->calls().all_reduce == 0);
}

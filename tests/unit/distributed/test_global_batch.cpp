#include <doctest/doctest.h>

#include "libreyolo/core/distributed/global_batch.hpp"
#include "libreyolo/core/error.hpp"

using libreyolo::core::Error;
using libreyolo::core::distributed::per_rank_batch;

TEST_CASE("distributed: batch is the global batch, split evenly over the ranks") {
  CHECK(per_rank_batch(16, 1) == 16);
  CHECK(per_rank_batch(16, 2) == 8);
  CHECK(per_rank_batch(64, 4) == 16);
  // The message docs/design.md#multi-gpu-training describes, with the nearest valid batches on both sides.
  CHECK_THROWS_WITH_AS(per_rank_batch(6, 4),
                       "batch=6 is the global batch and must be divisible by world_size=4: each rank trains at "
                       "batch // world_size, so this value would silently train at a different global batch than "
                       "requested. Use batch=4 or batch=8.",
                       Error);
  CHECK_THROWS_WITH_AS(per_rank_batch(2, 4), doctest::Contains("smaller than world_size=4"), Error);
}

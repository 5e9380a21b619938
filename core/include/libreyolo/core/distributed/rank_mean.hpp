#pragma once
// A value every rank holds for its own shard, as the run's: the mean over the ranks. For what
// the trainer reports once an epoch (the epoch's losses), where rank 0's shard alone would
// describe a quarter of a 4-GPU run's images.

#include <torch/types.h>

#include "libreyolo/core/distributed/collectives.hpp"

namespace libreyolo::core::distributed {

// `tensor`'s mean over the ranks, on `tensor`'s device. A collective: every rank calls it, in
// the same order as the others. With one rank, `tensor` itself.
torch::Tensor mean_over_ranks(Collectives& collectives, const torch::Tensor& tensor);

}  // namespace libreyolo::core::distributed

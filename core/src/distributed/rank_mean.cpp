#include "libreyolo/core/distributed/rank_mean.hpp"

#include <torch/torch.h>

namespace libreyolo::core::distributed {

torch::Tensor mean_over_ranks(Collectives& collectives, const torch::Tensor& tensor) {
  if (collectives.world_size() <= 1) return tensor;
  auto sum = tensor.to(collectives.device(), /*non_blocking=*/false, /*copy=*/true);
  collectives.all_reduce_sum(sum);
  return (sum / collectives.world_size()).to(tensor.device());
}

}  // namespace libreyolo::core::distributed

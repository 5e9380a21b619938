#pragma once
// The synchronizer sync_batch_norm.cpp hands to every sdk::BatchNorm2d: BatchNorm2d's training
// forward with statistics summed over all ranks.
//
// Per channel, over (N, H, W) of the local shard and in float32 at least (autocast may hand
// float16/bfloat16): n, S1 = sum(x - c), S2 = sum((x - c)^2), where the shift c is the layer's
// running mean (identical on every rank, since running statistics are updated from global
// statistics) to keep S2 / n - (S1 / n)^2 from cancelling. One all-reduce of the packed
// [S1, S2, n] per layer; mean = c + S1 / n, biased var = S2 / n - (S1 / n)^2. The all-reduce is
// differentiable (its gradient is the all-reduce of the incoming gradient), so autograd derives
// the exact synchronized gradient: that of the sum of every rank's loss. That is the CPU's path
// (and any layer PyTorch's synchronized-BatchNorm kernels do not cover); on CUDA those kernels
// run instead (native_sync_batch_norm.hpp), with the same result within float32 rounding.

#include <libreyolo/sdk/batch_norm.hpp>

#include <memory>

#include "libreyolo/core/distributed/collectives.hpp"

namespace libreyolo::core::distributed {

class GlobalBatchNorm final : public sdk::BatchNormSynchronizer {
 public:
  explicit GlobalBatchNorm(std::shared_ptr<Collectives> collectives);
  // Throws core::Error for an input that is not [N, C, H, W] with the layer's C, and for a
  // single-process batch of one value per channel (as torch's BatchNorm refuses it).
  torch::Tensor forward(torch::nn::BatchNorm2dImpl& layer, const torch::Tensor& input) override;

 private:
  std::shared_ptr<Collectives> collectives_;
};

// all_reduce_sum that autograd can see through: the result holds the sum over ranks of
// `local`; the gradient reaching `local` is the sum over ranks of the result's gradient.
// Every rank must therefore also run the backward pass through it.
torch::Tensor all_reduce_sum_differentiable(const torch::Tensor& local,
                                            const std::shared_ptr<Collectives>& collectives);

}  // namespace libreyolo::core::distributed

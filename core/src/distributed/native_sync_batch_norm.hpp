#pragma once
// Synchronized BatchNorm on PyTorch's own synchronized-BatchNorm kernels, the ones
// torch.nn.SyncBatchNorm runs on CUDA (CUDA-only operators: batch_norm_stats,
// batch_norm_gather_stats_with_counts, batch_norm_elemt, batch_norm_backward_reduce,
// batch_norm_backward_elemt): per layer about five kernels a direction over the activation and
// two small all-reduces, where the composed path of global_batch_norm.cpp makes a dozen float32
// passes each way. Elsewhere (the CPU: those operators have no CPU kernels) the composed path runs.
//
// Forward: each rank's per-channel mean and 1/std in float32; one all-reduce gathers every
// rank's [mean, 1/std, count] (each rank fills its row of a zero matrix); the global statistics
// combine them (and move the running statistics, unbiased variance, as BatchNorm does); the
// output is normalised in one pass. Backward: per-channel sums of dy and dy * (x - mean) on each
// rank, one all-reduce of both, then one pass for the input's gradient over the global count.
// The weight's and bias's gradients stay each rank's own sums, which gradient averaging then
// handles like any parameter's: the gradient of the sum of every rank's loss, as the composed
// path gives.

#include <torch/torch.h>

#include <memory>

#include "libreyolo/core/distributed/collectives.hpp"

namespace libreyolo::core::distributed {

// Whether the kernels apply: a CUDA input, a layer that is affine and tracks running
// statistics with a momentum (the cumulative average, momentum None, would read its count on
// the host every step).
bool native_sync_batch_norm_applies(const torch::nn::BatchNorm2dImpl& layer, const torch::Tensor& input);

// The layer's synchronized training forward on those kernels; num_batches_tracked moves by one.
torch::Tensor native_sync_batch_norm(torch::nn::BatchNorm2dImpl& layer, const torch::Tensor& input,
                                     const std::shared_ptr<Collectives>& collectives);

// The two directions as plain functions, which the autograd function above calls. Public for
// tests whose ranks are threads of one process on one GPU: autograd runs every CUDA backward of
// a device on that device's one engine thread, so two such ranks inside backward at once would
// wait for each other there forever; their tests call these directly instead.
struct NativeSyncForward {
  torch::Tensor output;
  torch::Tensor input;   // the input in its suggested memory format, as the backward reads it
  torch::Tensor mean;    // the global per-channel mean and 1/std, float32
  torch::Tensor invstd;
  torch::Tensor counts;  // every rank's values per channel, [world], int
};
// Moves running_mean and running_var (not num_batches_tracked).
NativeSyncForward native_sync_forward(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias,
                                      torch::Tensor running_mean, torch::Tensor running_var, double momentum,
                                      double eps, Collectives& collectives);

struct NativeSyncGradients {
  torch::Tensor input, weight, bias;  // undefined where not asked for
};
struct NeededGradients {
  bool input = true, weight = true, bias = true;
};
NativeSyncGradients native_sync_backward(const torch::Tensor& grad_output, const NativeSyncForward& forward,
                                         const torch::Tensor& weight, NeededGradients needed,
                                         Collectives& collectives);

}  // namespace libreyolo::core::distributed

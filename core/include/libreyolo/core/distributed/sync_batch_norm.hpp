#pragma once
// sync_bn=true: BatchNorm over the global batch of every rank instead of each rank's shard.
//
// LibTorch cannot swap a module held in a typed member, so layers are not replaced: families
// build their BatchNorm as sdk::BatchNorm2d, and this tells every such layer to compute its
// training statistics through the collectives. Layers of torch's own BatchNorm types cannot be
// reached; they are counted and named so the caller can warn.

#include <torch/nn/module.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/core/distributed/collectives.hpp"

namespace libreyolo::core::distributed {

struct SyncBatchNormReport {
  std::size_t synchronized = 0;        // sdk::BatchNorm2d layers now synchronised
  std::size_t not_synchronizable = 0;  // torch BatchNorm{1,2,3}d layers left per-rank
  std::vector<std::string> not_synchronizable_names;  // their dotted module paths
};

// Tells every sdk::BatchNorm2d under `model` (the model itself included) to normalise over the
// global batch through `collectives`. Every rank must call it on an identical model whose
// running statistics are identical (broadcast from rank 0), because each rank shifts its sums
// by its own running mean before they are added up. Calling it again replaces the collectives.
// Throws core::Error when `collectives` is null.
SyncBatchNormReport synchronize_batch_norm(torch::nn::Module& model,
                                           std::shared_ptr<Collectives> collectives);

// Turns synchronisation off again on every sdk::BatchNorm2d under `model`; returns how many.
std::size_t desynchronize_batch_norm(torch::nn::Module& model);

// BatchNorm layers of any kind under `model` (torch's BatchNorm{1,2,3}d, sdk::BatchNorm2d
// included), for docs/design.md#multi-gpu-training's warning: BatchNorm, sync_bn off, rank batch < 16.
// sdk::FrozenBatchNorm2d is no torch BatchNorm and has no batch statistics: not counted (and
// not synchronised above).
std::size_t count_batch_norm_layers(torch::nn::Module& model);

}  // namespace libreyolo::core::distributed

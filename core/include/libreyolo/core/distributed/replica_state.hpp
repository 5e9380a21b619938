#pragma once
// Keeping the ranks' replicas and decisions identical: rank 0's weights at the start, rank 0's
// run folder name, rank 0's "stop now" (early stop, Ctrl-C) at every epoch's end.

#include <torch/nn/module.h>

#include <string>

#include "libreyolo/core/distributed/collectives.hpp"

namespace libreyolo::core::distributed {

// Copies `root`'s parameters and buffers into every rank's `model` (same architecture).
void broadcast_module_state(torch::nn::Module& model, Collectives& collectives, int root = 0);

// `root`'s `text` on every rank (the argument is ignored elsewhere).
std::string broadcast_text(Collectives& collectives, const std::string& text, int root = 0);

// `root`'s `value` on every rank.
std::int64_t broadcast_integer(Collectives& collectives, std::int64_t value, int root = 0);

}  // namespace libreyolo::core::distributed

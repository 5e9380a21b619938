#pragma once
// What the SDK's layer types share for clone(): Cloneable's own copy would rebuild the LibTorch
// base type and lose the SDK's forward, so each type clones itself and copies its values here.
#include <torch/torch.h>

namespace libreyolo::sdk::detail {

// Copies `from`'s parameters and buffers (own, not recursive) into the same-named ones of
// freshly built `to`, moved to `device` when given. set_data keeps `to`'s members and their
// registered entries the same tensors, and keeps requires_grad as registered.
void copy_own_values(const torch::nn::Module& from, torch::nn::Module& to, const c10::optional<torch::Device>& device);

}  // namespace libreyolo::sdk::detail

#pragma once
// Moving weights between a torch::nn::Module and a StateDict with PyTorch's names and order,
// so a state dict taken here matches LibreYOLO's model.state_dict() key for key.

#include <torch/nn/module.h>

#include <functional>
#include <string>
#include <vector>

#include "libreyolo/core/checkpoint/checkpoint.hpp"

namespace libreyolo::core::checkpoint {

// Parameters and buffers, module by module in registration order (each module's own
// parameters, then its own buffers, then its children), named "a.b.weight": the order of
// PyTorch's Module.state_dict(). Tensors are detached, not copied. LibTorch has no
// non-persistent buffers; `skip` drops such names (a family's anchor grid, say) so the keys
// match the Python model's.
StateDict state_dict_of(const torch::nn::Module& module,
                        const std::function<bool(const std::string& name)>& skip = nullptr);

struct ShapeMismatch {
  std::string name;
  std::vector<int64_t> expected;  // the module's
  std::vector<int64_t> got;       // the state dict's
};

struct LoadReport {
  std::size_t loaded = 0;
  std::vector<std::string> missing;     // in the module, not in the state dict
  std::vector<std::string> unexpected;  // in the state dict, not in the module
  std::vector<ShapeMismatch> mismatched;
  bool complete() const { return missing.empty() && unexpected.empty() && mismatched.empty(); }
  // Every key not loaded: missing, unexpected and mismatched names.
  std::vector<std::string> skipped() const;
};

// Copies matching tensors (same name and shape) into the module's parameters and buffers,
// converting dtype and device as needed. strict: any missing, unexpected or mismatched key
// throws one core::Error listing all of them and nothing is changed. Not strict: loads what
// matches and reports the rest (a checkpoint with another class count: the head is skipped
// and keeps its fresh initialisation). `source` names the weights in messages. A
// num_batches_tracked key meant for an sdk::FrozenBatchNorm2d (weights of a BatchNorm2d) is
// dropped, neither loaded nor unexpected, as LibreYOLO's FrozenBatchNorm2d drops it.
LoadReport load_state_dict_into(torch::nn::Module& module, const StateDict& state, bool strict,
                                const std::string& source = "checkpoint");

}  // namespace libreyolo::core::checkpoint

#pragma once
// Writes a PickleValue tree as the pickle torch.save would write for the same Python objects
// (protocol 2; tensors as torch._utils._rebuild_tensor_v2 over persistent storage references).
// Only globals that torch.load(weights_only=True) allows appear: collections.OrderedDict,
// torch._utils._rebuild_tensor_v2 and torch.<Type>Storage.

#include <string>
#include <vector>

#include "libreyolo/core/checkpoint/pickle_value.hpp"

namespace libreyolo::core::checkpoint {

struct PickledData {
  std::string pickle;  // the data.pkl record
  // One CPU tensor per distinct storage, in key order: storage i goes to record data/i.
  // Each is a contiguous 1-D view of its whole storage.
  std::vector<at::Tensor> storages;
};

// Tensors are written from CPU memory in row-major (contiguous) layout: a CUDA or
// channels-last tensor is copied first. Tensors that share a storage (EMA weights also saved
// as the model) are written once, as torch.save does. Throws std::runtime_error for a node
// that cannot be written (bytes, opaque objects, an undefined tensor).
PickledData write_pickle(const PickleValue& root);

}  // namespace libreyolo::core::checkpoint

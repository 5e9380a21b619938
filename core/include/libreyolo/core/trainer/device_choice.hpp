#pragma once
// device= for a single-process run: auto, cpu, 0, cuda:0. A list of GPUs (0,1 / [0, 1]) is the
// multi-GPU launcher's business; mps is refused on this platform.

#include <torch/types.h>

#include <string>

namespace libreyolo::core::trainer {

// Throws core::Error for an unknown spelling, a GPU that does not exist, or a list of GPUs.
torch::Device choose_device(const std::string& spec);

}  // namespace libreyolo::core::trainer

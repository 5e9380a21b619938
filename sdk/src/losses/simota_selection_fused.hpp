#pragma once
// The SDK-internal seam between simota_selection (simota_selection.cpp) and its CUDA kernels:
// simota_selection_fused.cpp in a CUDA build, simota_selection_fused_unavailable.cpp otherwise.

#include <string>

#include "libreyolo/sdk/losses/simota_selection.hpp"

namespace libreyolo::sdk::losses {

// Why this build cannot run the kernels at all ("" when it can).
std::string fused_simota_selection_unavailable();

// simota_selection_composed's outputs from PyTorch's top-k and two launches; the caller checked
// the inputs (simota_selection_refusal).
SimOtaSelection fused_simota_selection(const SimOtaCost& cost, const torch::Tensor& dynamic_k, int64_t topk);

}  // namespace libreyolo::sdk::losses

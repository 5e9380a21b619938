#pragma once
// The SDK-internal seam between simota_cost (simota_cost.cpp) and its CUDA kernel:
// simota_cost_fused.cpp in a CUDA build, simota_cost_fused_unavailable.cpp otherwise.

#include <string>

#include "libreyolo/sdk/losses/simota_cost.hpp"

namespace libreyolo::sdk::losses {

// Why this build cannot run the kernel at all ("" when it can).
std::string fused_simota_cost_unavailable();

// simota_cost_composed's outputs from the kernel (and the all-negative class sum it reads, as
// the composed ops compute it); the caller checked the inputs (simota_cost_refusal).
SimOtaCost fused_simota_cost(const SimOtaCostInputs& in, const SimOtaCostOptions& options);

}  // namespace libreyolo::sdk::losses

#pragma once
// The SDK-internal seam between class_bce.cpp and its CUDA kernels: class_bce_fused.cpp in a CUDA
// build, class_bce_fused_unavailable.cpp otherwise.

#include <string>

#include "libreyolo/sdk/losses/class_bce.hpp"

namespace libreyolo::sdk::losses {

// Why this build cannot run the kernels at all ("" when it can).
std::string fused_class_bce_unavailable();

// The summed loss, differentiable in the logits (in.dense_target is not called). The caller checks
// the inputs first (class_bce_refusal).
torch::Tensor fused_class_bce_sum(const ClassBceInputs& in);

}  // namespace libreyolo::sdk::losses

#pragma once
// The SDK-internal seam between box_dfl_loss.cpp and its CUDA kernels: box_dfl_loss_fused.cpp in
// a CUDA build, box_dfl_loss_fused_unavailable.cpp otherwise.

#include <string>

#include "libreyolo/sdk/losses/box_dfl_loss.hpp"

namespace libreyolo::sdk::losses {

// Why this build cannot run the kernels at all ("" when it can).
std::string fused_box_dfl_loss_unavailable();

// The most bins (reg_max) the kernels take.
int box_dfl_most_bins();

// The two sums, differentiable in the logits (in.pred_boxes is not read: the kernels decode the
// logits themselves). The caller checks the inputs first (box_dfl_loss_refusal).
BoxDflSums fused_box_dfl_loss(const BoxDflInputs& in);

}  // namespace libreyolo::sdk::losses

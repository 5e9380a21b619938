// A build without CUDA kernels (the CPU build): the fused box losses are never taken.
#include <stdexcept>

#include "../cuda/box_dfl_loss_kernels.hpp"  // plain C++: the kernels' limits
#include "box_dfl_loss_fused.hpp"

namespace libreyolo::sdk::losses {

std::string fused_box_dfl_loss_unavailable() { return "this build has no fused CUDA kernels"; }

int box_dfl_most_bins() { return fused::kMostBoxBins; }

BoxDflSums fused_box_dfl_loss(const BoxDflInputs&) {
  throw std::logic_error("fused_box_dfl_loss: this build has no fused CUDA kernels (ask box_dfl_loss_refusal first)");
}

}  // namespace libreyolo::sdk::losses

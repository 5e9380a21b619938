// A build without CUDA kernels (the CPU build): the fused SimOTA selection is never taken.
#include <stdexcept>

#include "simota_selection_fused.hpp"

namespace libreyolo::sdk::losses {

std::string fused_simota_selection_unavailable() { return "this build has no fused CUDA kernels"; }

SimOtaSelection fused_simota_selection(const SimOtaCost&, const torch::Tensor&, int64_t) {
  throw std::logic_error(
      "fused_simota_selection: this build has no fused CUDA kernels (ask simota_selection_refusal first)");
}

}  // namespace libreyolo::sdk::losses

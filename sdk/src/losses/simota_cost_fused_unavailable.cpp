// A build without CUDA kernels (the CPU build): the fused SimOTA cost is never taken.
#include <stdexcept>

#include "simota_cost_fused.hpp"

namespace libreyolo::sdk::losses {

std::string fused_simota_cost_unavailable() { return "this build has no fused CUDA kernels"; }

SimOtaCost fused_simota_cost(const SimOtaCostInputs&, const SimOtaCostOptions&) {
  throw std::logic_error("fused_simota_cost: this build has no fused CUDA kernels (ask simota_cost_refusal first)");
}

}  // namespace libreyolo::sdk::losses

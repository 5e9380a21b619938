// A build without CUDA kernels (the CPU build): the fused 2x2 average pool is never taken.
#include <stdexcept>

#include "avg_pool_2x2_fused.hpp"

namespace libreyolo::sdk {

std::string fused_avg_pool_2x2_unavailable() { return "this build has no fused CUDA kernels"; }

torch::Tensor fused_avg_pool_2x2(const torch::Tensor&) {
  throw std::logic_error("fused_avg_pool_2x2: this build has no fused CUDA kernels (ask avg_pool_2x2_refusal first)");
}

}  // namespace libreyolo::sdk

// A build without CUDA kernels (the CPU build): the fused block tails are never taken.
#include <stdexcept>

#include "block_tails_fused.hpp"

namespace libreyolo::sdk {

std::string fused_block_tails_unavailable() { return "this build has no fused CUDA kernels"; }

torch::Tensor fused_add_silu(const torch::Tensor&, const torch::Tensor&) {
  throw std::logic_error("fused_add_silu: this build has no fused CUDA kernels (ask block_tail_refusal first)");
}

torch::Tensor fused_silu_add(const torch::Tensor&, const torch::Tensor&) {
  throw std::logic_error("fused_silu_add: this build has no fused CUDA kernels (ask block_tail_refusal first)");
}

}  // namespace libreyolo::sdk

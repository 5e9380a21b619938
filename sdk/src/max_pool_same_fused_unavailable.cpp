// A build without CUDA kernels (the CPU build): the fused same-size max pool is never taken.
#include <stdexcept>

#include "max_pool_same_fused.hpp"

namespace libreyolo::sdk {

std::string fused_max_pool_same_unavailable() { return "this build has no fused CUDA kernels"; }

torch::Tensor fused_max_pool_same(const torch::Tensor&, int64_t) {
  throw std::logic_error("fused_max_pool_same: this build has no fused CUDA kernels (ask max_pool_same_refusal first)");
}

}  // namespace libreyolo::sdk

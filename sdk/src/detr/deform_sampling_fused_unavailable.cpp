// A build without CUDA kernels (the CPU build): the fused sampling is never taken.
#include <stdexcept>

#include "deform_sampling_fused.hpp"

namespace libreyolo::sdk::detr {

std::string fused_sampling_refusal(const torch::Tensor&, const SpatialShapes&, const std::vector<int64_t>&) {
  return "this build has no CUDA kernels";
}

torch::Tensor fused_sampling(const torch::Tensor&, const SpatialShapes&, const std::vector<int64_t>&,
                             const torch::Tensor&, const torch::Tensor&) {
  throw std::logic_error("fused_sampling: this build has no CUDA kernels (ask fused_sampling_refusal first)");
}

}  // namespace libreyolo::sdk::detr

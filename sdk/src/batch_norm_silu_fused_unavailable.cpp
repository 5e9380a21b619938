// A build without CUDA kernels (the CPU build): the fused BatchNorm + SiLU is never taken.
#include <stdexcept>

#include "batch_norm_silu_fused.hpp"

namespace libreyolo::sdk {

std::string fused_batch_norm_silu_unavailable() { return "this build has no fused CUDA kernels"; }

bool fused_batch_norm_silu_cluster_fits(const torch::Tensor&) { return false; }

bool fused_batch_norm_silu_clusters_on_device() { return false; }

torch::Tensor fused_batch_norm_silu(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&,
                                    const torch::Tensor&, const torch::Tensor&, double, double, bool) {
  throw std::logic_error(
      "fused_batch_norm_silu: this build has no fused CUDA kernels (ask batch_norm_silu_refusal first)");
}

}  // namespace libreyolo::sdk

// A build without CUDA kernels (the CPU build): cuDNN's BatchNorm + SiLU is never taken.
#include <stdexcept>

#include "cudnn_batch_norm_silu.hpp"

namespace libreyolo::sdk {

std::string cudnn_batch_norm_silu_unavailable() { return "this build has no fused CUDA kernels"; }

torch::Tensor cudnn_batch_norm_silu(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&,
                                    const torch::Tensor&, const torch::Tensor&, double, double) {
  throw std::logic_error("cudnn_batch_norm_silu: this build has no fused CUDA kernels (ask batch_norm_silu_refusal first)");
}

}  // namespace libreyolo::sdk

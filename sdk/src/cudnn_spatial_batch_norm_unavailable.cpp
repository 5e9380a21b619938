// A build without CUDA kernels (the CPU build): cuDNN's spatial BatchNorm is never taken.
#include <stdexcept>

#include "cudnn_spatial_batch_norm.hpp"

namespace libreyolo::sdk {

std::string cudnn_spatial_batch_norm_unavailable() { return "this build has no fused CUDA kernels"; }

bool cudnn_spatial_batch_norm_fits(const torch::Tensor&) { return false; }

torch::Tensor cudnn_spatial_batch_norm(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&,
                                       const torch::Tensor&, const torch::Tensor&, double, double) {
  throw std::logic_error("cudnn_spatial_batch_norm: this build has no fused CUDA kernels");
}

}  // namespace libreyolo::sdk

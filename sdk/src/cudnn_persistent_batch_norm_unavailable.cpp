// cudnn_persistent_batch_norm.hpp in a build without the SDK's CUDA kernels: never fits.
#include <c10/util/Exception.h>

#include "cudnn_persistent_batch_norm.hpp"

namespace libreyolo::sdk {

std::string own_workspace_batch_norm_unavailable() { return "this build has no CUDA kernels of the SDK's"; }

bool own_workspace_batch_norm_fits(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&,
                                   const torch::Tensor&, const torch::Tensor&) {
  return false;
}

bool stream_is_recording(const torch::Device&) { return false; }

torch::Tensor own_workspace_batch_norm(const void*, const torch::Tensor&, const torch::Tensor&, const torch::Tensor&,
                                       const torch::Tensor&, const torch::Tensor&, double, double) {
  TORCH_CHECK(false, "own_workspace_batch_norm: ", own_workspace_batch_norm_unavailable());
}

}  // namespace libreyolo::sdk

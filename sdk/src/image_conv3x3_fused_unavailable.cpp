// A build without CUDA kernels (the CPU build): the image convolution is never taken.
#include <stdexcept>

#include "image_conv3x3_fused.hpp"

namespace libreyolo::sdk {

std::string fused_image_conv3x3_unavailable() { return "this build has no fused CUDA kernels"; }

bool fused_image_conv3x3_fits(int64_t, int64_t, int64_t, int64_t, int64_t, bool) { return false; }

torch::Tensor fused_image_conv3x3(const torch::Tensor&, const torch::Tensor&, int64_t, bool) {
  throw std::logic_error("fused_image_conv3x3: this build has no fused CUDA kernels (ask conv3x3_image_refusal first)");
}

}  // namespace libreyolo::sdk

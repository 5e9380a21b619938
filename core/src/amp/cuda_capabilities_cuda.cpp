// CUDA builds only (see core/CMakeLists.txt).
#include <ATen/cuda/CUDAContext.h>

#include "libreyolo/core/amp/precision_plan.hpp"

namespace libreyolo::core::amp {

bool cuda_supports_bfloat16(const torch::Device& device) {
  if (!device.is_cuda()) return false;
  const auto* properties = at::cuda::getDeviceProperties(device.has_index() ? device.index() : 0);
  return properties->major >= 8;
}

}  // namespace libreyolo::core::amp

// FusedOptimizerStep's passes as CUDA kernels on the current stream (a recording captures them).
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "optimizer_step_launch.hpp"

namespace libreyolo::core::amp {

std::string launch_optimizer_step_on_cuda(const std::vector<fused::OptimizerSlot>& checked,
                                          const std::vector<fused::OptimizerSlot>& all, const fused::StepScalars& scalars,
                                          int device_index) {
  const c10::cuda::CUDAGuard on_device(static_cast<c10::DeviceIndex>(device_index));  // the launches go to the current device
  void* stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_index)).stream();
  int error = fused::optimizer_step_check(checked.data(), static_cast<int>(checked.size()), scalars.found_inf, stream);
  if (error == 0) error = fused::optimizer_step_update(all.data(), static_cast<int>(all.size()), scalars, stream);
  if (error == 0) error = fused::optimizer_step_finish(scalars, stream);
  return error == 0 ? "" : fused::optimizer_step_error_text(error);
}

}  // namespace libreyolo::core::amp

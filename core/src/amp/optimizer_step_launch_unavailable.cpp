// Builds without the fused CUDA kernels (the CPU build, LIBREYOLO_CUDA_KERNELS=OFF): the session
// never gets here on CUDA (FusedOptimizerStep::refusal asks sdk::fused_kernels_built()).
#include "optimizer_step_launch.hpp"

namespace libreyolo::core::amp {

std::string launch_optimizer_step_on_cuda(const std::vector<fused::OptimizerSlot>&, const std::vector<fused::OptimizerSlot>&,
                                          const fused::StepScalars&, int) {
  return "this build has no fused CUDA kernels (LIBREYOLO_CUDA_KERNELS=OFF or no nvcc)";
}

}  // namespace libreyolo::core::amp

#pragma once
// Where FusedOptimizerStep's three passes run: the CUDA kernels (optimizer_step_launch_cuda.cpp;
// optimizer_step_launch_unavailable.cpp in builds without them) or the same per-item code on
// the host (optimizer_step_host.cpp), for CPU tensors. Private to core/src/amp/.
#include <string>
#include <vector>

#include "cuda/optimizer_step_kernels.hpp"

namespace libreyolo::core::amp {

// The check over `checked` (the slots with a gradient), the update of `all`, the finish, on the
// current CUDA stream of the tensors' device. "" on success, else what failed.
std::string launch_optimizer_step_on_cuda(const std::vector<fused::OptimizerSlot>& checked,
                                          const std::vector<fused::OptimizerSlot>& all, const fused::StepScalars& scalars,
                                          int device_index);

// The same on the host, block by block as the kernels split the work.
void run_optimizer_step_on_host(const std::vector<fused::OptimizerSlot>& checked,
                                const std::vector<fused::OptimizerSlot>& all, const fused::StepScalars& scalars);

}  // namespace libreyolo::core::amp

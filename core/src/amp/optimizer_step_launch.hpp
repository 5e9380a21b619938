#pragma once
// Where FusedOptimizerStep's three passes run: the CUDA kernels (optimizer_step_launch_cuda.cpp;
// optimizer_step_launch_unavailable.cpp in builds without them) or the same per-item code on
// the host (optimizer_step_host.cpp), for CPU tensors. Private to core/src/amp/.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>

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

// The SgdRounding with which our update gives the composed update's bits on `device` for these
// settings (at::_fused_sgd_ on CUDA, Sgd::step on the CPU; optimizer_step_calibration.cpp);
// nullopt when none does or this LibTorch has no fused SGD reading its lr from the device.
std::optional<std::int32_t> measure_sgd_rounding(double weight_decay, double momentum, bool nesterov, c10::Device device);
// For the log: "float32 scalars; weight decay fused, ...".
std::string sgd_rounding_name(std::int32_t rounding);

}  // namespace libreyolo::core::amp

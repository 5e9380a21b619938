#include "libreyolo/core/amp/precision_plan.hpp"

#include <torch/torch.h>

#include "libreyolo/sdk/compat.hpp"

namespace libreyolo::core::amp {

PrecisionPlan plan_precision(bool amp, const std::string& amp_dtype, const torch::Device& device,
                             bool bfloat16_supported) {
  PrecisionPlan plan;
  if (!amp) return plan;
  if (!device.is_cuda()) {
    plan.note = "amp=true has no effect on " + device.str() + ": training in float32";
    return plan;
  }
  plan.autocast = true;
  if (amp_dtype == "bfloat16") {
    if (bfloat16_supported) {
      plan.dtype = torch::kBFloat16;
      return plan;  // bfloat16 has float32's exponent range: no loss scaling needed
    }
    plan.note = "amp_dtype=bfloat16 is not supported by this GPU: using float16 with a gradient scaler";
  }
  plan.dtype = torch::kFloat16;
  plan.grad_scaler = true;
  return plan;
}

AutocastScope::AutocastScope(const PrecisionPlan& plan) : active_(plan.autocast) {
  if (!active_) return;
  previous_enabled_ = sdk::compat::cuda_autocast_enabled();
  previous_dtype_ = sdk::compat::cuda_autocast_dtype();
  sdk::compat::set_cuda_autocast(true, plan.dtype);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // Leaving the outermost autocast region frees the cached casts of the weights.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  sdk::compat::set_cuda_autocast(previous_enabled_, previous_dtype_);
}

}  // namespace libreyolo::core::amp

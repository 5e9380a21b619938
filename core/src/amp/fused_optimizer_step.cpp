#include "libreyolo/core/amp/fused_optimizer_step.hpp"

#include <torch/torch.h>

#include <optional>

#include "cuda/optimizer_step_kernels.hpp"
#include "libreyolo/core/amp/grad_scaler.hpp"
#include "libreyolo/core/amp/weight_copies.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/model_ema.hpp"
#include "libreyolo/core/optim/sgd.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "optimizer_step_launch.hpp"
#include "optimizer_step_slots.hpp"

namespace libreyolo::core::amp {
namespace {

std::string parameters_refusal(const optim::Optimizer& optimizer) {
  if (optimizer.groups().size() > static_cast<std::size_t>(fused::kStepMostGroups)) return "more than 8 parameter groups";
  for (const auto& group : optimizer.groups()) {
    for (const auto& p : group.params) {
      if (p.scalar_type() != torch::kFloat32) return "a parameter is not float32";
    }
  }
  return "";
}

}  // namespace

struct FusedOptimizerStep::Impl {
  OptimizerStepParts parts;
  optim::Sgd* sgd = nullptr;
  std::int32_t sgd_rounding = 0;  // measured on the parts' device (optimizer_step_calibration.cpp)
  std::string unusable;

  fused::StepScalars scalars(const at::Tensor& skip_streak, const optim::ModelEma::Averages* averages) const {
    fused::StepScalars s;
    s.found_inf = parts.scaler->found_inf().data_ptr<float>();
    s.scale = parts.scaler->scale_tensor().data_ptr<float>();
    s.growth_tracker = parts.scaler->growth_tracker().data_ptr<std::int32_t>();
    s.skip_streak = skip_streak.defined() ? skip_streak.data_ptr<float>() : nullptr;
    const auto& groups = sgd->groups();
    for (std::size_t g = 0; g < groups.size(); ++g) {
      // An empty group has no device lr (make_device_lr skips it), and no slot reads it.
      if (groups[g].lr_on_device.defined()) s.lr[g] = groups[g].lr_on_device.data_ptr<float>();
      s.weight_decay[g] = groups[g].weight_decay;
    }
    s.momentum = sgd->momentum();
    s.nesterov = sgd->options().nesterov ? 1 : 0;
    s.sgd_rounding = sgd_rounding;
    if (averages != nullptr) {
      s.decay = averages->decay.data_ptr<float>();
      s.keep = averages->keep.data_ptr<float>();
    }
    const auto& o = parts.scaler->options();
    s.growth_factor = o.growth_factor;
    s.backoff_factor = o.backoff_factor;
    s.growth_interval = static_cast<std::int32_t>(o.growth_interval);
    return s;
  }
};

std::string FusedOptimizerStep::refusal(const OptimizerStepParts& parts) {
  auto* sgd = dynamic_cast<optim::Sgd*>(parts.optimizer);
  if (sgd == nullptr) return "the optimizer is not SGD (only SGD's update is fused)";
  if (sgd->momentum() == 0.0) return "SGD without momentum";
  if (!sgd->has_device_lr()) return "the optimizer reads its learning rate from the host";
  if (parts.scaler == nullptr || !parts.scaler->enabled()) return "there is no float16 gradient scaler";
  if (parts.scaler->found_inf().is_cuda() && !sdk::fused_kernels_built()) return "this build has no fused CUDA kernels";
  if (auto why = parameters_refusal(*sgd); !why.empty()) return why;
  if (parts.ema != nullptr) {
    if (parts.model == nullptr) return "the EMA's model is not given";
    if (!parts.ema->averages(*parts.model).decay.defined()) return "the EMA's decay is not held on the device";
  }
  return "";
}

FusedOptimizerStep::FusedOptimizerStep(const OptimizerStepParts& parts) : impl_(std::make_unique<Impl>()) {
  impl_->parts = parts;
  impl_->sgd = dynamic_cast<optim::Sgd*>(parts.optimizer);
  if (impl_->sgd == nullptr) throw std::logic_error("FusedOptimizerStep without SGD: ask refusal() first");
  const auto device = parts.scaler->found_inf().device();
  // Any group's decay exercises the decay's rounding; a run without decay never uses it.
  double weight_decay = 5e-4;
  for (const auto& group : impl_->sgd->groups()) {
    if (group.weight_decay != 0.0) weight_decay = group.weight_decay;
  }
  const auto measured = measure_sgd_rounding(weight_decay, impl_->sgd->momentum(), impl_->sgd->options().nesterov, device);
  if (measured) {
    impl_->sgd_rounding = *measured;
  } else {
    impl_->unusable = "no rounding of ours gives the composed SGD update bit for bit on " + device.str();
  }
}

const std::string& FusedOptimizerStep::unusable() const { return impl_->unusable; }

std::string FusedOptimizerStep::rounding() const { return sgd_rounding_name(impl_->sgd_rounding); }

FusedOptimizerStep::~FusedOptimizerStep() = default;

bool FusedOptimizerStep::run(const at::Tensor& skip_streak, std::string& why) {
  if (!impl_->unusable.empty()) {
    why = impl_->unusable;
    return false;
  }
  torch::NoGradGuard no_grad;
  const auto& parts = impl_->parts;
  OptimizerSlotTable table;
  table.add_parameters(*impl_->sgd, parts.copies);
  if (parts.copies != nullptr && table.why.empty()) table.add_copies(*parts.copies);
  std::optional<optim::ModelEma::Averages> averages;
  if (parts.ema != nullptr && table.why.empty()) {
    averages.emplace(parts.ema->averages(*parts.model));
    table.add_averages(*averages);
  }
  why = table.why;
  if (!why.empty()) return false;
  const auto scalars = impl_->scalars(skip_streak, averages ? &*averages : nullptr);
  const auto device = parts.scaler->found_inf().device();
  if (!device.is_cuda()) {
    run_optimizer_step_on_host(table.with_gradients(), table.slots, scalars);
    return true;
  }
  const auto failed = launch_optimizer_step_on_cuda(table.with_gradients(), table.slots, scalars, device.index());
  if (!failed.empty()) {
    throw Error("The fused optimizer step failed on the GPU", failed,
                "run with fused_kernels=off and report the message if it says more than out of memory");
  }
  return true;
}

}  // namespace libreyolo::core::amp

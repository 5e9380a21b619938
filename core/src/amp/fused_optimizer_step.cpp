#include "libreyolo/core/amp/fused_optimizer_step.hpp"

#include <torch/torch.h>

#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "cuda/optimizer_step_kernels.hpp"
#include "libreyolo/core/amp/grad_scaler.hpp"
#include "libreyolo/core/amp/weight_copies.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/model_ema.hpp"
#include "libreyolo/core/optim/sgd.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "optimizer_step_launch.hpp"

namespace libreyolo::core::amp {
namespace {

using fused::OptimizerSlot;

const void* key_of(const torch::Tensor& t) { return t.unsafeGetTensorImpl(); }

std::string parameters_refusal(const optim::Optimizer& optimizer) {
  if (optimizer.groups().size() > static_cast<std::size_t>(fused::kStepMostGroups)) return "more than 8 parameter groups";
  for (const auto& group : optimizer.groups()) {
    for (const auto& p : group.params) {
      if (p.scalar_type() != torch::kFloat32) return "a parameter is not float32";
    }
  }
  return "";
}

// Element i of `t` is element i of `like`'s memory: the same sizes, both dense, the same strides
// where a dimension has more than one element (a 1x1 convolution's weight gradient may say
// [C, 1, 1, 1] where its channels-last weight says [C, 1, C, C]: the same memory order).
bool same_layout(const torch::Tensor& t, const torch::Tensor& like) {
  if (t.sizes() != like.sizes() || t.device() != like.device() || !t.is_non_overlapping_and_dense() ||
      !like.is_non_overlapping_and_dense()) {
    return false;
  }
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1 && t.stride(d) != like.stride(d)) return false;
  }
  return true;
}

// The slots of one step: every parameter of the optimizer (updated where it has a gradient),
// then the copies and the EMA's tensors attached to their parameter's slot or given their own.
class SlotTable {
 public:
  std::vector<OptimizerSlot> slots;
  std::string why;  // set: this step cannot be fused

  void add_parameters(optim::Sgd& sgd, const WeightCopies* copies) {
    std::unordered_map<const void*, const torch::Tensor*> copy_of;
    if (copies != nullptr) {
      for (std::size_t i = 0; i < copies->masters().size(); ++i) copy_of[key_of(copies->masters()[i])] = &copies->copies()[i];
    }
    auto& groups = sgd.groups();
    for (std::size_t g = 0; g < groups.size() && why.empty(); ++g) {
      for (std::size_t i = 0; i < groups[g].params.size() && why.empty(); ++i) {
        const auto& p = groups[g].params[i];
        const auto copy = copy_of.find(key_of(p));
        const bool copy_has_grad = copy != copy_of.end() && copy->second->grad().defined();
        if (copy_has_grad && p.grad().defined()) {
          why = "a weight has gradients both in its float32 tensor and in its float16 copy";
          return;
        }
        const torch::Tensor& grad = copy_has_grad ? copy->second->grad() : p.grad();
        OptimizerSlot& slot = new_slot(p);
        if (grad.defined()) attach_gradient(slot, grad, sgd.momentum_buffer(g, i), static_cast<int>(g), p);
      }
    }
  }

  void add_copies(const WeightCopies& copies) {
    for (std::size_t i = 0; i < copies.masters().size() && why.empty(); ++i) {
      const auto& copy = copies.copies()[i];
      OptimizerSlot& slot = slot_for(copies.masters()[i]);
      if (copy.scalar_type() != torch::kHalf || !same_layout(copy, copies.masters()[i])) {
        why = "a weight's copy is not float16 in its weight's layout";
      } else {
        slot.copy = static_cast<std::uint16_t*>(copy.data_ptr());
      }
    }
  }

  void add_averages(const optim::ModelEma::Averages& averages) {
    for (std::size_t i = 0; i < averages.ema_float.size() && why.empty(); ++i) {
      const auto& average = averages.ema_float[i];
      OptimizerSlot& slot = slot_for(averages.model_float[i]);
      if (slot.average != nullptr) {
        why = "the EMA averages one tensor twice";
      } else if (average.scalar_type() != torch::kFloat32 || !same_layout(average, averages.model_float[i])) {
        why = "an EMA tensor is not float32 in its model tensor's layout";
      } else {
        slot.average = average.data_ptr();
      }
    }
    for (std::size_t i = 0; i < averages.ema_int.size() && why.empty(); ++i) add_integer_copy(averages.model_int[i], averages.ema_int[i]);
  }

  // The slots that have a gradient: what the check reads.
  std::vector<OptimizerSlot> with_gradients() const {
    std::vector<OptimizerSlot> out;
    for (const auto& slot : slots) {
      if (slot.grad != nullptr) out.push_back(slot);
    }
    return out;
  }

 private:
  std::unordered_map<const void*, std::size_t> index_;

  OptimizerSlot& new_slot(const torch::Tensor& source) {
    if (source.numel() > std::numeric_limits<std::int32_t>::max()) why = "a tensor has 2^31 elements or more";
    if (source.scalar_type() != torch::kFloat32 || !source.is_non_overlapping_and_dense()) why = "a parameter or averaged buffer is not dense float32";
    OptimizerSlot slot;
    slot.param = source.data_ptr();
    slot.numel = static_cast<std::int32_t>(source.numel());
    index_[key_of(source)] = slots.size();
    slots.push_back(slot);
    return slots.back();
  }

  OptimizerSlot& slot_for(const torch::Tensor& source) {
    const auto found = index_.find(key_of(source));
    return found != index_.end() ? slots[found->second] : new_slot(source);
  }

  void attach_gradient(OptimizerSlot& slot, const torch::Tensor& grad, const torch::Tensor& momentum, int group,
                       const torch::Tensor& p) {
    const bool half = grad.scalar_type() == torch::kHalf;
    if (!(half || grad.scalar_type() == torch::kFloat32) || !same_layout(grad, p) || !same_layout(momentum, p)) {
      std::ostringstream out;
      out << "a gradient or momentum buffer is not float16/float32 in its parameter's layout (parameter " << p.sizes()
          << " strides " << p.strides() << ", gradient " << grad.scalar_type() << " strides " << grad.strides()
          << ", momentum strides " << momentum.strides() << ")";
      why = out.str();
      return;
    }
    slot.grad = grad.data_ptr();
    slot.grad_half = half ? 1 : 0;
    slot.momentum = momentum.data_ptr<float>();
    slot.group = group;
  }

  void add_integer_copy(const torch::Tensor& source, const torch::Tensor& average) {
    if (source.scalar_type() != torch::kLong || average.scalar_type() != torch::kLong || !same_layout(average, source) ||
        source.numel() > std::numeric_limits<std::int32_t>::max()) {
      why = "an integer buffer the EMA copies is not int64 in its model tensor's layout";
      return;
    }
    OptimizerSlot slot;
    slot.kind = fused::SlotKind::int64_copy;
    slot.param = source.data_ptr();
    slot.average = average.data_ptr();
    slot.numel = static_cast<std::int32_t>(source.numel());
    slots.push_back(slot);
  }
};

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
      s.lr[g] = groups[g].lr_on_device.data_ptr<float>();
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
  SlotTable table;
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

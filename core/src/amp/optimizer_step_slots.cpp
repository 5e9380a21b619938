// OptimizerSlotTable: one step's tensors as the fused optimizer step's kernels read them.
#include "optimizer_step_slots.hpp"

#include <torch/torch.h>

#include <limits>
#include <sstream>

#include "libreyolo/core/amp/weight_copies.hpp"
#include "libreyolo/core/optim/sgd.hpp"

namespace libreyolo::core::amp {

using fused::OptimizerSlot;

namespace {

const void* key_of(const torch::Tensor& t) { return t.unsafeGetTensorImpl(); }

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

}  // namespace

void OptimizerSlotTable::add_parameters(optim::Sgd& sgd, const WeightCopies* copies) {
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

void OptimizerSlotTable::add_copies(const WeightCopies& copies) {
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

void OptimizerSlotTable::add_averages(const optim::ModelEma::Averages& averages) {
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
std::vector<fused::OptimizerSlot> OptimizerSlotTable::with_gradients() const {
  std::vector<fused::OptimizerSlot> out;
  for (const auto& slot : slots) {
    if (slot.grad != nullptr) out.push_back(slot);
  }
  return out;
}

fused::OptimizerSlot& OptimizerSlotTable::new_slot(const torch::Tensor& source) {
  if (source.numel() > std::numeric_limits<std::int32_t>::max()) why = "a tensor has 2^31 elements or more";
  if (source.scalar_type() != torch::kFloat32 || !source.is_non_overlapping_and_dense()) why = "a parameter or averaged buffer is not dense float32";
  fused::OptimizerSlot slot;
  slot.param = source.data_ptr();
  slot.numel = static_cast<std::int32_t>(source.numel());
  index_[key_of(source)] = slots.size();
  slots.push_back(slot);
  return slots.back();
}

fused::OptimizerSlot& OptimizerSlotTable::slot_for(const torch::Tensor& source) {
  const auto found = index_.find(key_of(source));
  return found != index_.end() ? slots[found->second] : new_slot(source);
}

void OptimizerSlotTable::attach_gradient(OptimizerSlot& slot, const torch::Tensor& grad, const torch::Tensor& momentum, int group,
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

void OptimizerSlotTable::add_integer_copy(const torch::Tensor& source, const torch::Tensor& average) {
  if (source.scalar_type() != torch::kLong || average.scalar_type() != torch::kLong || !same_layout(average, source) ||
      source.numel() > std::numeric_limits<std::int32_t>::max()) {
    why = "an integer buffer the EMA copies is not int64 in its model tensor's layout";
    return;
  }
  fused::OptimizerSlot slot;
  slot.kind = fused::SlotKind::int64_copy;
  slot.param = source.data_ptr();
  slot.average = average.data_ptr();
  slot.numel = static_cast<std::int32_t>(source.numel());
  slots.push_back(slot);
}

}  // namespace libreyolo::core::amp

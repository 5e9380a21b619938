#include "libreyolo/core/amp/weight_copies.hpp"

#include <torch/torch.h>

#include <unordered_map>

#include "libreyolo/sdk/compat.hpp"

namespace libreyolo::core::amp {
namespace {

bool copyable(const torch::Tensor& t) { return t.defined() && t.requires_grad() && t.scalar_type() == torch::kFloat32; }

// The copy autocast would make: the same values rounded to `dtype`, the same memory format
// (channels-last weights stay channels-last). A leaf of its own, so that the backward leaves the
// convolution's gradient in its .grad without a cast.
torch::Tensor copy_of(const torch::Tensor& master, torch::ScalarType dtype) {
  torch::NoGradGuard no_grad;
  return master.detach().to(dtype).requires_grad_(true);
}

}  // namespace

WeightCopies::WeightCopies(torch::nn::Module& model, torch::ScalarType dtype) {
  // A tensor shared by two layers gets one copy, so that its gradients meet in one .grad.
  std::unordered_map<const void*, std::size_t> index_of;
  const auto add = [&](const torch::Tensor& master) {
    const auto [found, inserted] = index_of.emplace(master.unsafeGetTensorImpl(), masters_.size());
    if (inserted) {
      masters_.push_back(master);
      copies_.push_back(copy_of(master, dtype));
    }
    return found->second;
  };
  for (const auto& module : model.modules(/*include_self=*/true)) {
    auto* conv = dynamic_cast<torch::nn::Conv2dImpl*>(module.get());
    if (conv == nullptr || !copyable(conv->weight)) continue;
    Layer layer{conv, add(conv->weight), kNone};
    if (copyable(conv->bias)) layer.bias = add(conv->bias);
    owners_.push_back(module);
    layers_.push_back(layer);
  }
}

WeightCopies::~WeightCopies() = default;

void WeightCopies::refresh() {
  torch::NoGradGuard no_grad;
  sdk::compat::copy_tensors(copies_, masters_);
  stale_ = false;
}

void WeightCopies::point_members_at(const std::vector<torch::Tensor>& tensors) {
  for (const auto& layer : layers_) {
    layer.conv->weight = tensors[layer.weight];
    if (layer.bias != kNone) layer.conv->bias = tensors[layer.bias];
  }
}

WeightCopies::Swap::Swap(WeightCopies& copies) : copies_(copies) {
  copies_.refresh_if_stale();
  // Normally pass_gradients has emptied them; after a step that failed between its backward and
  // that call (a recording that fell back to eager), leftovers would be added into this one's.
  for (auto& copy : copies_.copies_) copy.mutable_grad().reset();
  copies_.point_members_at(copies_.copies_);
}

WeightCopies::Swap::~Swap() { copies_.point_members_at(copies_.masters_); }

std::vector<WeightCopies::LayerCopies> WeightCopies::unshared_layers() const {
  std::vector<std::size_t> uses(copies_.size(), 0);
  for (const auto& layer : layers_) {
    ++uses[layer.weight];
    if (layer.bias != kNone) ++uses[layer.bias];
  }
  std::vector<LayerCopies> result;
  for (const auto& layer : layers_) {
    if (uses[layer.weight] != 1) continue;
    LayerCopies copies{copies_[layer.weight], {}};
    if (layer.bias != kNone) {
      if (uses[layer.bias] != 1) continue;  // its bias gradient would meet another in one .grad
      copies.bias = copies_[layer.bias];
    }
    result.push_back(std::move(copies));
  }
  return result;
}

void WeightCopies::pass_gradients() {
  torch::NoGradGuard no_grad;
  // Undefined .grad: made and written in one launch (autograd would have taken the cast
  // tensor as it is). Defined: the converted gradient added in place, as autograd accumulates.
  std::vector<torch::Tensor> made, made_from, added_to, added_from;
  for (std::size_t i = 0; i < copies_.size(); ++i) {
    auto& copy_grad = copies_[i].mutable_grad();
    if (!copy_grad.defined()) continue;
    auto& grad = masters_[i].mutable_grad();
    if (grad.defined()) {
      added_to.push_back(grad);
      added_from.push_back(copy_grad);
    } else {
      grad = torch::empty_like(masters_[i]);
      made.push_back(grad);
      made_from.push_back(copy_grad);
    }
    copy_grad.reset();  // the next backward hands its gradient over without an addition
  }
  sdk::compat::copy_tensors(made, made_from);
  if (added_to.empty()) return;
  std::vector<torch::Tensor> converted;
  converted.reserve(added_to.size());
  for (const auto& grad : added_to) converted.push_back(torch::empty_like(grad));
  sdk::compat::copy_tensors(converted, added_from);
  at::_foreach_add_(added_to, converted);
}

}  // namespace libreyolo::core::amp

#include "libreyolo/core/optim/optimizer.hpp"

#include <torch/torch.h>

#include <optional>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/grad_utils.hpp"

namespace libreyolo::core::optim {

Optimizer::Optimizer(std::vector<ParamGroup> groups) : groups_(std::move(groups)) {
  std::optional<torch::Device> device;
  for (const auto& group : groups_) {
    for (const auto& p : group.params) {
      if (!p.defined() || !p.is_floating_point() || !p.is_leaf()) {
        throw Error("Cannot optimize parameter group '" + group.name + "'",
                    "it holds a tensor that is not a floating-point leaf parameter",
                    "pass the module's parameters themselves");
      }
      if (device && *device != p.device()) {
        throw Error("Cannot optimize parameters on several devices",
                    "group '" + group.name + "' mixes " + device->str() + " and " +
                        p.device().str(),
                    "move the whole model to one device before building the optimizer");
      }
      device = p.device();
    }
  }
}

void Optimizer::set_lr(double base_lr) {
  for (auto& group : groups_) {
    group.lr = base_lr * group.lr_mult;
    if (group.lr_on_device.defined()) group.lr_on_device.fill_(group.lr);
  }
}

void Optimizer::zero_grad(bool set_to_none) { optim::zero_grad(parameters(), set_to_none); }

std::vector<torch::Tensor> Optimizer::parameters() const {
  std::vector<torch::Tensor> all;
  for (const auto& group : groups_) all.insert(all.end(), group.params.begin(), group.params.end());
  return all;
}

namespace detail {

void make_device_lr(std::vector<ParamGroup>& groups) {
  for (auto& group : groups) {
    if (group.params.empty()) continue;
    const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(group.params.front().device());
    group.lr_on_device = torch::full({}, group.lr, options);
  }
}

ActiveParams active_params(const ParamGroup& group) {
  ActiveParams active;
  active.index.reserve(group.params.size());
  active.params.reserve(group.params.size());
  active.grads.reserve(group.params.size());
  for (size_t i = 0; i < group.params.size(); ++i) {
    const auto& grad = group.params[i].grad();
    if (!grad.defined()) continue;
    if (grad.is_sparse()) {
      throw Error("Cannot apply a sparse gradient in group '" + group.name + "'",
                  "the multi-tensor optimizers handle dense gradients only",
                  "use dense embeddings (sparse=false)");
    }
    active.index.push_back(i);
    active.params.push_back(group.params[i]);
    active.grads.push_back(grad);
  }
  return active;
}

const torch::Tensor* find_state(const NamedTensors& state, const std::string& key) {
  for (const auto& item : state) {
    if (item.first == key) return &item.second;
  }
  return nullptr;
}

torch::Tensor restored_state(const torch::Tensor& saved, const torch::Tensor& like,
                             const std::string& key) {
  if (saved.sizes() != like.sizes()) {
    throw Error("Cannot restore optimizer state '" + key + "'",
                "the saved tensor's shape differs from its parameter's",
                "resume with the model the checkpoint was trained with");
  }
  torch::NoGradGuard no_grad;
  return saved.detach().to(like.options(), /*non_blocking=*/false, /*copy=*/true);
}

std::string state_key(size_t index, const char* field) {
  return "state." + std::to_string(index) + "." + field;
}

}  // namespace detail

}  // namespace libreyolo::core::optim

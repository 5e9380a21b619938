#include "libreyolo/core/optim/model_ema.hpp"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "libreyolo/core/error.hpp"
#include "libreyolo/sdk/compat.hpp"

namespace libreyolo::core::optim {

namespace {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Parameters and buffers in state-dict order: each module's own parameters, then its own
// buffers, modules in pre-order. The root is visited by hand because named_modules() can only
// include it when the model is held by a shared_ptr.
NamedTensors named_state(const torch::nn::Module& model) {
  NamedTensors out;
  auto visit = [&out](const std::string& prefix, const torch::nn::Module& module) {
    const std::string dot = prefix.empty() ? "" : prefix + ".";
    for (const auto& item : module.named_parameters(/*recurse=*/false)) {
      out.emplace_back(dot + item.key(), item.value());
    }
    for (const auto& item : module.named_buffers(/*recurse=*/false)) {
      out.emplace_back(dot + item.key(), item.value());
    }
  };
  visit("", model);
  for (const auto& item : model.named_modules("", /*include_self=*/false)) {
    visit(item.key(), *item.value());
  }
  return out;
}

// ema = ema * d + ((1 - d) * model), d and 1 - d read from the device (use_device_decay).
void average_with_device_decay(std::vector<torch::Tensor>& ema, const std::vector<torch::Tensor>& model,
                               const torch::Tensor& decay, const torch::Tensor& keep) {
#if LIBREYOLO_HAS_FOREACH_MUL_TENSOR_SCALAR
  at::_foreach_mul_(ema, decay);
  at::_foreach_add_(ema, at::_foreach_mul(model, keep));
#else
  (void)ema, (void)model, (void)decay, (void)keep;
  throw std::logic_error("the EMA's device decay needs LibTorch >= 2.1");  // use_device_decay refused
#endif
}

Error mismatch(const std::string& name, const std::string& why) {
  return Error("The EMA weights do not fit the model at '" + name + "'", why,
               "use the EMA with the model it was made from");
}

}  // namespace

ModelEma::ModelEma(const torch::nn::Module& model, ModelEmaOptions options, int64_t updates)
    : options_(options), updates_(updates) {
  torch::NoGradGuard no_grad;
  for (const auto& [name, tensor] : named_state(model)) {
    state_.emplace_back(name, tensor.detach().clone());  // clone: never requires grad
  }
  const std::unordered_set<std::string> constant(options_.constant.begin(), options_.constant.end());
  for (const auto& [name, tensor] : state_) {
    const Role role = constant.count(name) ? Role::hold : tensor.is_floating_point() ? Role::average : Role::copy;
    roles_.push_back(role);
    if (role != Role::hold) (role == Role::average ? ema_float_ : ema_int_).push_back(tensor);
  }
  bind(model);
}

void ModelEma::bind(const torch::nn::Module& model) {
  const auto current = named_state(model);
  if (current.size() != state_.size()) {
    throw mismatch(current.size() < state_.size() ? state_[current.size()].first
                                                  : current[state_.size()].first,
                   "the model has " + std::to_string(current.size()) +
                       " parameters and buffers, the EMA " + std::to_string(state_.size()));
  }
  model_float_.clear();
  model_int_.clear();
  for (size_t i = 0; i < current.size(); ++i) {
    const auto& [name, tensor] = current[i];
    if (name != state_[i].first) throw mismatch(name, "the EMA has '" + state_[i].first + "' here");
    if (tensor.sizes() != state_[i].second.sizes()) throw mismatch(name, "the shapes differ");
    if (roles_[i] != Role::hold) (roles_[i] == Role::average ? model_float_ : model_int_).push_back(tensor);
  }
  bound_ = &model;
}

double ModelEma::decay_at(int64_t updates) const {
  if (!ramp_ || options_.tau <= 0) return options_.decay;
  return options_.decay * (1.0 - std::exp(-static_cast<double>(updates) / options_.tau));
}

void ModelEma::set_decay(double decay, bool ramp) {
  options_.decay = decay;
  ramp_ = ramp;
}

void ModelEma::update(const torch::nn::Module& model) {
  advance();
  apply(model);
}

void ModelEma::advance() {
  decay_now_ = decay_at(++updates_);
  if (decay_.defined()) {
    decay_.fill_(decay_now_);
    keep_.fill_(1.0 - decay_now_);
  }
}

bool ModelEma::use_device_decay() {
#if LIBREYOLO_HAS_FOREACH_MUL_TENSOR_SCALAR
  if (ema_float_.empty() || !ema_float_.front().is_cuda()) return false;
  hold_decay_in_tensors();
  return true;
#else
  return false;
#endif
}

void ModelEma::hold_decay_in_tensors() {
  const auto device = ema_float_.empty() ? torch::Device(torch::kCPU) : ema_float_.front().device();
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  decay_ = torch::full({}, decay_now_, options);
  keep_ = torch::full({}, 1.0 - decay_now_, options);
}

ModelEma::Averages ModelEma::averages(const torch::nn::Module& model) {
  if (&model != bound_) bind(model);
  return {ema_float_, model_float_, ema_int_, model_int_, decay_, keep_};
}

void ModelEma::apply(const torch::nn::Module& model) {
  if (&model != bound_) bind(model);
  const double d = decay_now_;
  torch::NoGradGuard no_grad;
  if (!ema_float_.empty() && decay_.defined()) {
    average_with_device_decay(ema_float_, model_float_, decay_, keep_);
  } else if (!ema_float_.empty()) {
    at::_foreach_mul_(ema_float_, d);
    at::_foreach_add_(ema_float_, model_float_, 1.0 - d);
  }
  if (!ema_int_.empty()) {  // a copy: _foreach_copy_ is missing from LibTorch 1.13
    at::_foreach_zero_(ema_int_);
    at::_foreach_add_(ema_int_, model_int_);
  }
}

void ModelEma::copy_to(torch::nn::Module& model) const {
  std::unordered_map<std::string, const torch::Tensor*> by_name;
  for (const auto& [name, tensor] : state_) by_name.emplace(name, &tensor);
  torch::NoGradGuard no_grad;
  for (auto& [name, target] : named_state(model)) {
    const auto found = by_name.find(name);
    if (found == by_name.end()) throw mismatch(name, "the EMA has no such tensor");
    if (found->second->sizes() != target.sizes()) throw mismatch(name, "the shapes differ");
    target.copy_(*found->second);
  }
}

void ModelEma::load_state(const NamedTensors& saved) {
  std::unordered_map<std::string, const torch::Tensor*> by_name;
  for (const auto& [name, tensor] : saved) by_name.emplace(name, &tensor);
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : state_) {
    const auto found = by_name.find(name);
    if (found == by_name.end()) throw mismatch(name, "the saved EMA state has no such tensor");
    if (found->second->sizes() != tensor.sizes()) throw mismatch(name, "the shapes differ");
    tensor.copy_(*found->second);
  }
}

}  // namespace libreyolo::core::optim

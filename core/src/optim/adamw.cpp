#include "libreyolo/core/optim/adamw.hpp"

#include <libreyolo/sdk/compat.hpp>
#include <torch/torch.h>

#include <cmath>
#include <map>

namespace libreyolo::core::optim {

AdamW::AdamW(std::vector<ParamGroup> groups, AdamWOptions options)
    : Optimizer(std::move(groups)), options_(options) {
  exp_avg_.resize(groups_.size());
  exp_avg_sq_.resize(groups_.size());
  steps_.resize(groups_.size());
  device_steps_.resize(groups_.size());
  for (size_t g = 0; g < groups_.size(); ++g) {
    exp_avg_[g].resize(groups_[g].params.size());
    exp_avg_sq_[g].resize(groups_[g].params.size());
    steps_[g].assign(groups_[g].params.size(), 0);
    device_steps_[g].resize(groups_[g].params.size());
  }
}

namespace {

std::vector<torch::Tensor> pick(const std::vector<torch::Tensor>& all,
                                const std::vector<size_t>& positions) {
  std::vector<torch::Tensor> out;
  out.reserve(positions.size());
  for (size_t k : positions) out.push_back(all[k]);
  return out;
}

}  // namespace

// torch.optim.AdamW(fused=True)'s kernels, with grad_scale / found_inf inputs, exist from
// PyTorch 2.1 (CUDA only).
#if LIBREYOLO_TORCH_AT_LEAST(2, 1)
#define LIBREYOLO_HAS_FUSED_ADAMW 1
#endif

int64_t AdamW::step_count(size_t group, size_t param) const {
  const auto& device_step = device_steps_[group][param];
  return device_step.defined() ? static_cast<int64_t>(device_step.item<float>()) : steps_[group][param];
}

// After fused steps, a host step (or a checkpoint) needs the counts the device kept.
void AdamW::sync_steps_from_device() {
  for (size_t g = 0; g < device_steps_.size(); ++g) {
    for (size_t i = 0; i < device_steps_[g].size(); ++i) {
      if (!device_steps_[g][i].defined()) continue;
      steps_[g][i] = static_cast<int64_t>(device_steps_[g][i].item<float>());
      device_steps_[g][i] = torch::Tensor();
    }
  }
}

bool AdamW::step_unless_found_inf(const torch::Tensor& found_inf) {
#ifdef LIBREYOLO_HAS_FUSED_ADAMW
  if (!found_inf.is_cuda()) return false;
  torch::NoGradGuard no_grad;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const ParamGroup& group = groups_[g];
    auto active = detail::active_params(group);
    if (active.params.empty()) continue;
    std::vector<torch::Tensor> exp_avg, exp_avg_sq, steps;
    for (size_t i : active.index) {
      if (!exp_avg_[g][i].defined()) {
        exp_avg_[g][i] = torch::zeros_like(group.params[i]);
        exp_avg_sq_[g][i] = torch::zeros_like(group.params[i]);
      }
      auto& device_step = device_steps_[g][i];
      if (!device_step.defined()) {
        device_step = torch::full({}, static_cast<float>(steps_[g][i]), found_inf.options().dtype(torch::kFloat32));
      }
      exp_avg.push_back(exp_avg_[g][i]);
      exp_avg_sq.push_back(exp_avg_sq_[g][i]);
      steps.push_back(device_step);
    }
    // As torch.optim's fused path: count the step, let the kernel skip it on found_inf, and
    // take the count back when it did.
    at::_foreach_add_(steps, 1.0);
    if (options_.decoupled_weight_decay) {
      at::_fused_adamw_(active.params, active.grads, exp_avg, exp_avg_sq, /*max_exp_avg_sqs=*/{}, steps, group.lr,
                        options_.beta1, options_.beta2, group.weight_decay, options_.eps, /*amsgrad=*/false,
                        /*maximize=*/false, /*grad_scale=*/{}, found_inf);
    } else {
      at::_fused_adam_(active.params, active.grads, exp_avg, exp_avg_sq, /*max_exp_avg_sqs=*/{}, steps, group.lr,
                       options_.beta1, options_.beta2, group.weight_decay, options_.eps, /*amsgrad=*/false,
                       /*maximize=*/false, /*grad_scale=*/{}, found_inf);
    }
    at::_foreach_sub_(steps, std::vector<torch::Tensor>(steps.size(), found_inf));
  }
  return true;
#else
  (void)found_inf;
  return false;
#endif
}

void AdamW::step() {
  torch::NoGradGuard no_grad;
  sync_steps_from_device();
  const double beta1 = options_.beta1, beta2 = options_.beta2;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const ParamGroup& group = groups_[g];
    auto active = detail::active_params(group);
    if (active.params.empty()) continue;  // _foreach_* refuse empty lists

    std::vector<torch::Tensor> exp_avg, exp_avg_sq;
    // Parameters bucketed by their step count: one bucket unless some parameter missed a
    // gradient on an earlier step. Bias correction is a scalar per bucket.
    std::map<int64_t, std::vector<size_t>> by_step;
    for (size_t k = 0; k < active.index.size(); ++k) {
      const size_t i = active.index[k];
      if (!exp_avg_[g][i].defined()) {  // first step: torch allocates the moments lazily too
        exp_avg_[g][i] = torch::zeros_like(group.params[i]);
        exp_avg_sq_[g][i] = torch::zeros_like(group.params[i]);
      }
      exp_avg.push_back(exp_avg_[g][i]);
      exp_avg_sq.push_back(exp_avg_sq_[g][i]);
      by_step[++steps_[g][i]].push_back(k);
    }

    std::vector<torch::Tensor> grads = active.grads;
    if (group.weight_decay != 0.0) {
      if (options_.decoupled_weight_decay) {
        at::_foreach_mul_(active.params, 1.0 - group.lr * group.weight_decay);
      } else {  // Adam: L2 decay through the gradient, out of place
        grads = at::_foreach_add(grads, active.params, group.weight_decay);
      }
    }
    // m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
    at::_foreach_mul_(exp_avg, beta1);
    at::_foreach_add_(exp_avg, grads, 1.0 - beta1);
    at::_foreach_mul_(exp_avg_sq, beta2);
    at::_foreach_addcmul_(exp_avg_sq, grads, grads, 1.0 - beta2);

    for (const auto& [step, positions] : by_step) {
      const double bias_correction1 = 1.0 - std::pow(beta1, static_cast<double>(step));
      const double bias_correction2 = 1.0 - std::pow(beta2, static_cast<double>(step));
      const bool all = positions.size() == active.params.size();
      const auto params = all ? active.params : pick(active.params, positions);
      const auto m = all ? exp_avg : pick(exp_avg, positions);
      const auto v = all ? exp_avg_sq : pick(exp_avg_sq, positions);
      // denom = sqrt(v) / sqrt(1 - b2^t) + eps;  p -= lr / (1 - b1^t) * m / denom
      auto denom = at::_foreach_sqrt(v);
      at::_foreach_div_(denom, std::sqrt(bias_correction2));
      at::_foreach_add_(denom, options_.eps);
      at::_foreach_addcdiv_(params, m, denom, -group.lr / bias_correction1);
    }
  }
}

NamedTensors AdamW::state() const {
  NamedTensors state;
  size_t index = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    for (size_t i = 0; i < groups_[g].params.size(); ++i, ++index) {
      if (!exp_avg_[g][i].defined()) continue;
      // torch.optim keeps the step as a float32 CPU tensor.
      state.emplace_back(detail::state_key(index, "step"),
                         torch::tensor(static_cast<float>(step_count(g, i))));
      state.emplace_back(detail::state_key(index, "exp_avg"), exp_avg_[g][i]);
      state.emplace_back(detail::state_key(index, "exp_avg_sq"), exp_avg_sq_[g][i]);
    }
  }
  return state;
}

void AdamW::load_state(const NamedTensors& state) {
  size_t index = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    for (size_t i = 0; i < groups_[g].params.size(); ++i, ++index) {
      const auto& param = groups_[g].params[i];
      const auto step_key = detail::state_key(index, "step");
      const auto m_key = detail::state_key(index, "exp_avg");
      const auto v_key = detail::state_key(index, "exp_avg_sq");
      const torch::Tensor* step = detail::find_state(state, step_key);
      const torch::Tensor* m = detail::find_state(state, m_key);
      const torch::Tensor* v = detail::find_state(state, v_key);
      if (!step || !m || !v) {  // never stepped: starts fresh
        exp_avg_[g][i] = torch::Tensor();
        exp_avg_sq_[g][i] = torch::Tensor();
        steps_[g][i] = 0;
        device_steps_[g][i] = torch::Tensor();
        continue;
      }
      exp_avg_[g][i] = detail::restored_state(*m, param, m_key);
      exp_avg_sq_[g][i] = detail::restored_state(*v, param, v_key);
      steps_[g][i] = static_cast<int64_t>(step->item<double>());  // at load time, not per step
      device_steps_[g][i] = torch::Tensor();
    }
  }
}

}  // namespace libreyolo::core::optim

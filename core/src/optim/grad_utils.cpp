#include "libreyolo/core/optim/grad_utils.hpp"

#include <torch/torch.h>

#include "libreyolo/core/error.hpp"
#include "libreyolo/sdk/compat.hpp"

#ifndef LIBREYOLO_HAS_FOREACH_MUL_TENSOR_SCALAR
#error "sdk/compat.hpp lost LIBREYOLO_HAS_FOREACH_MUL_TENSOR_SCALAR"
#endif

namespace libreyolo::core::optim {

void zero_grad(const std::vector<torch::Tensor>& params, bool set_to_none) {
  if (set_to_none) {
    for (const auto& p : params) {
      // mutable_grad() hands out the parameter's own gradient slot; const_cast because the
      // handle is const, not the parameter.
      const_cast<torch::Tensor&>(p).mutable_grad().reset();
    }
    return;
  }
  auto grads = gradients(params);
  if (grads.empty()) return;
  torch::NoGradGuard no_grad;
  // A gradient that still belongs to an autograd graph (create_graph) must leave it first,
  // as torch.optim.Optimizer.zero_grad does.
  for (auto& g : grads) {
    if (g.grad_fn()) g.detach_();
  }
  at::_foreach_zero_(grads);
}

std::vector<torch::Tensor> gradients(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> grads;
  grads.reserve(params.size());
  for (const auto& p : params) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  return grads;
}

torch::Tensor clip_grad_norm(const std::vector<torch::Tensor>& params, double max_norm) {
  if (!(max_norm > 0.0)) {
    throw Error("Cannot clip gradients to max_norm " + std::to_string(max_norm),
                "the maximum norm must be a positive number", "set clip_max_norm > 0, or 0 to "
                "switch clipping off");
  }
  torch::NoGradGuard no_grad;
  auto grads = gradients(params);
  if (grads.empty()) {
    const auto device = params.empty() ? torch::Device(torch::kCPU) : params.front().device();
    return torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
  }
  // One multi-tensor kernel for the per-gradient norms, one for their norm.
  auto norms = at::_foreach_norm(grads, 2);
  const auto dtype = norms.front().scalar_type();
  for (const auto& n : norms) {
    if (n.scalar_type() != dtype) {  // gradients of mixed precision: add up in float32
      for (auto& m : norms) m = m.to(torch::kFloat32);
      break;
    }
  }
  auto total = at::stack(norms).norm(2);
  auto coef = (max_norm / (total + 1e-6)).clamp_max(1.0);
#if LIBREYOLO_HAS_FOREACH_MUL_TENSOR_SCALAR
  at::_foreach_mul_(grads, coef);
#else
  for (auto& g : grads) g.mul_(coef);  // what torch 1.13's clip_grad_norm_ does
#endif
  return total;
}

}  // namespace libreyolo::core::optim

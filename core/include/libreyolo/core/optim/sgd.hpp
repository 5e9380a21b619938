#pragma once
// SGD with momentum, Nesterov and L2 weight decay, computing exactly what torch.optim.SGD does
// (dampening 0, the only setting LibreYOLO uses):
//   d = grad + wd * p;  buf = momentum * buf + d;  d = nesterov ? d + momentum * buf : buf;
//   p -= lr * d
// Momentum buffers start at zero on a parameter's first step, which gives torch's
// "buf = d on the first step" exactly because dampening is 0.
// step() builds d inside the gradient tensors (no allocation per parameter): the gradients
// are consumed, so read or clip them before the step, never after.

#include "libreyolo/core/optim/optimizer.hpp"

namespace libreyolo::core::optim {

struct SgdOptions {
  double momentum = 0.937;  // LibreYOLO's default (YOLOX recipe: 0.9)
  bool nesterov = true;     // LibreYOLO's default
};

class Sgd final : public Optimizer {
 public:
  // Throws core::Error for nesterov without momentum (torch.optim refuses it too).
  Sgd(std::vector<ParamGroup> groups, SgdOptions options = {});

  void step() override;
  // LibTorch >= 2.2 on CUDA with momentum: torch's fused SGD kernel, which reads found_inf
  // itself (the update rule above, one kernel per group).
  bool step_unless_found_inf(const torch::Tensor& found_inf) override;
  // LibTorch >= 2.4 on CUDA with momentum: the fused kernel's overload that reads the lr from a
  // device tensor (step_unless_found_inf uses it from then on).
  bool use_device_lr() override;

  // Momentum is a constant of the run (a recorded step keeps the value it was recorded with).
  double momentum() const { return options_.momentum; }
  const SgdOptions& options() const { return options_; }
  // A parameter's momentum buffer, made (zeros) on first use as step() makes it: for the fused
  // optimizer step (amp/fused_optimizer_step.hpp), which updates it in place.
  torch::Tensor& momentum_buffer(size_t group, size_t index);

  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

 private:
  SgdOptions options_;
  // [group][param]; undefined until the parameter's first step (as in torch.optim).
  std::vector<std::vector<torch::Tensor>> momentum_buffers_;
};

}  // namespace libreyolo::core::optim

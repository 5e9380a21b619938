#pragma once
// Adam with decoupled weight decay (AdamW), computing what torch.optim.AdamW does (amsgrad off):
//   p *= 1 - lr * wd;  m = b1 * m + (1 - b1) * g;  v = b2 * v + (1 - b2) * g * g;
//   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// With decoupled_weight_decay = false it is torch.optim.Adam instead (g += wd * p first), which
// LibreYOLO offers as optimizer=adam.

#include <cstdint>

#include "libreyolo/core/optim/optimizer.hpp"

namespace libreyolo::core::optim {

struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  bool decoupled_weight_decay = true;  // false: Adam with L2 decay added to the gradient
};

class AdamW final : public Optimizer {
 public:
  AdamW(std::vector<ParamGroup> groups, AdamWOptions options = {});

  void step() override;
  // On CUDA with LibTorch >= 2.1: torch's fused AdamW/Adam kernel, which skips the update on the
  // device when found_inf is set (no host read, so the host does not wait for the backward),
  // with the step counts kept on the device. Elsewhere false.
  bool step_unless_found_inf(const torch::Tensor& found_inf) override;

  const AdamWOptions& options() const { return options_; }

  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

 private:
  AdamWOptions options_;
  // [group][param]. Moments are allocated on the first step; step counts are per parameter
  // and host-side, as torch's bias correction needs them (a parameter without a gradient on
  // some step falls behind the others).
  std::vector<std::vector<torch::Tensor>> exp_avg_;
  std::vector<std::vector<torch::Tensor>> exp_avg_sq_;
  std::vector<std::vector<int64_t>> steps_;
  // The fused path's step counts: float32 0-dim tensors on the parameters' device, from the
  // first fused step on (steps_ is then stale; step_count() reads these).
  std::vector<std::vector<torch::Tensor>> device_steps_;
  int64_t step_count(size_t group, size_t param) const;
  void sync_steps_from_device();
};

}  // namespace libreyolo::core::optim

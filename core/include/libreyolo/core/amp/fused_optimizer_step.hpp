#pragma once
// fused_kernels=optimizer_step (docs/fused-kernels.md, "Optimizer step"): the end of a float16
// training step in three kernels instead of PyTorch's multi-tensor operators.
//
// After the backward, the composed path passes the float16 weight copies' gradients to the
// float32 weights (WeightCopies::pass_gradients), unscales every gradient and checks it for
// inf/NaN (GradScaler::unscale), runs torch's fused SGD per parameter group, counts the skip
// streak, updates the scale, refreshes the float16 copies and moves the EMA: about 87 launches a
// YOLOv9-t step (0.5 ms of GPU time, most of it launch granularity: the arithmetic moves some
// 60 MB). Here one launch checks every gradient where autograd left it (the copies' float16
// gradients read directly: none is passed or converted), one updates every parameter, its
// momentum, copy and average element by element, and one thread settles the scaler. Each
// operation is the replaced kernel's, so the bits are the same (optimizer_step_device.cuh).
//
// It reads the gradients where a whole-step graph's backward left them: one window a step (no
// accumulation), no clipping, no distributed averaging; the session decides (whole_step.cpp).
// On the CPU the same per-item code runs on the host (the unit tests use it).

#include <memory>
#include <string>

namespace at {
class Tensor;
}
namespace torch::nn {
class Module;
}
namespace libreyolo::core::optim {
class Optimizer;
class ModelEma;
}  // namespace libreyolo::core::optim

namespace libreyolo::core::amp {

class GradScaler;
class WeightCopies;

struct OptimizerStepParts {
  optim::Optimizer* optimizer = nullptr;
  GradScaler* scaler = nullptr;
  WeightCopies* copies = nullptr;      // optional: without it every gradient is a .grad
  optim::ModelEma* ema = nullptr;      // optional
  const torch::nn::Module* model = nullptr;  // the EMA's model (with ema)
};

class FusedOptimizerStep {
 public:
  // Why these parts cannot take the fused step ("" when they can): SGD with momentum reading
  // its lr from the device, a float16 gradient scaler, float32 parameters in at most eight
  // groups, float16 weight copies, an EMA whose decay is on the device.
  static std::string refusal(const OptimizerStepParts& parts);
  // After refusal(parts) == "". On CUDA, measures how this LibTorch's fused SGD rounds (a few
  // launches on 65,536 values, before any step is recorded): see unusable().
  explicit FusedOptimizerStep(const OptimizerStepParts& parts);
  ~FusedOptimizerStep();
  FusedOptimizerStep(const FusedOptimizerStep&) = delete;
  FusedOptimizerStep& operator=(const FusedOptimizerStep&) = delete;

  // After a backward whose copies' gradients were not passed on: unscale and check, SGD unless
  // an inf/NaN was found, `skip_streak` (a float32 0-dim tensor; undefined: not counted), the
  // scale's update, the copies and the EMA (ModelEma::advance already ran). Returns false having
  // changed nothing, with the reason in `why`, when this step's tensors do not fit (a gradient
  // in another layout, a weight with gradients in both its float32 tensor and its copy): the
  // caller then passes the gradients on and takes the composed path. Throws core::Error when a
  // launch fails.
  bool run(const at::Tensor& skip_streak, std::string& why);

  // "" when run() can fuse; else why not for the whole run (no rounding of ours reproduces this
  // LibTorch's fused SGD bit for bit): the session keeps the composed path then.
  const std::string& unusable() const;
  // How the SGD update rounds (what was measured on CUDA), for the log.
  std::string rounding() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace libreyolo::core::amp

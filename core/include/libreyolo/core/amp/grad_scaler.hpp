#pragma once
// Dynamic loss scaling for float16 mixed precision, with torch.amp.GradScaler's semantics:
// the loss is multiplied by `scale` before backward so small float16 gradients do not flush to
// zero; before the optimizer step the gradients are divided back and checked for inf/NaN.
// A step with a non-finite gradient is skipped and the scale is multiplied by backoff_factor;
// after growth_interval clean steps in a row it is multiplied by growth_factor.
//
// bfloat16 (float32's exponent range) and float32 need none of this: a scaler built with
// enabled = false has the same interface and does nothing (scale() returns the loss, step()
// just steps).
//
// Host synchronisation: exactly one 4-byte device-to-host read per optimizer step (in step(),
// of found_inf), and only when enabled. Why not decide on the device: an overflowed gradient
// holds inf/NaN and NaN * 0 is NaN, so masking the update with (1 - found_inf) would still
// corrupt weights and momentum; a per-tensor where() would cost two kernels per parameter. The
// way to drop this read is PyTorch 2.x's fused CUDA optimizers (_fused_sgd_, _fused_adamw_),
// which take found_inf and skip inside the kernel: step_on_device() uses them where the
// optimizer offers it (SGD on LibTorch >= 2.2); LibTorch 1.13 has no such kernels.

#include <torch/types.h>

#include <cstdint>

namespace libreyolo::core::optim {
class Optimizer;
}

namespace libreyolo::core::amp {

struct GradScalerOptions {
  bool enabled = true;  // false for bfloat16 / float32
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
};

// What a checkpoint keeps (torch's GradScaler.state_dict(): "scale", "_growth_tracker").
struct GradScalerState {
  double scale = 65536.0;
  int64_t growth_tracker = 0;
};

class GradScaler {
 public:
  // `device`: where the model's gradients live; the scale and the inf flag live there too.
  explicit GradScaler(torch::Device device, GradScalerOptions options = {});

  bool enabled() const { return options_.enabled; }

  // loss * scale (a device multiply, no read); the loss itself when disabled.
  torch::Tensor scale(const torch::Tensor& loss) const;

  // Divides the optimizer's gradients by the scale and records whether any is inf/NaN. Call
  // it before clipping (clip_max_norm is in unscaled units); step() calls it when you did not.
  // Once per optimizer step: a second call before update() throws core::Error.
  void unscale(optim::Optimizer& optimizer);

  // Unscales if needed, then steps the optimizer unless a gradient was inf/NaN. Returns whether
  // it stepped (the one host read).
  bool step(optim::Optimizer& optimizer);

  // As step(), but the skip is decided on the device when the optimizer can do that
  // (Optimizer::step_unless_found_inf): no host read. Returns false, having only unscaled,
  // when it cannot; call step() then.
  bool step_on_device(optim::Optimizer& optimizer);

  // Adjusts the scale from this step's inf flag (on the device) and readies the next step.
  // Throws core::Error when no unscale happened since the last update.
  void update();

  // Forgets an unscale() that no update() followed: a step recording that failed half-way ran
  // unscale() on the host without its device work, and the next step must unscale again.
  void forget_unscale() { unscaled_ = false; }

  // The live tensors: scale (float32, 0-dim), found_inf (float32, 0-dim; 1 after an
  // overflowing unscale, reset by update()).
  const torch::Tensor& scale_tensor() const { return scale_; }
  const torch::Tensor& found_inf() const { return found_inf_; }
  // For the fused optimizer step, which updates them on the device as update() does.
  const torch::Tensor& growth_tracker() const { return growth_tracker_; }
  const GradScalerOptions& options() const { return options_; }

  // Host reads, for logs and checkpoints only.
  double current_scale() const;
  GradScalerState state() const;
  void load_state(const GradScalerState& state);

 private:
  GradScalerOptions options_;
  torch::Tensor scale_;           // float32
  torch::Tensor growth_tracker_;  // int32: clean steps since the last change
  torch::Tensor found_inf_;       // float32
  bool unscaled_ = false;         // unscale() ran since the last update()
};

}  // namespace libreyolo::core::amp

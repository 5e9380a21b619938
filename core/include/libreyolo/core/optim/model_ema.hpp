#pragma once
// Exponential moving average of a model's weights (LibreYOLO's ModelEMA, from YOLOX / timm).
// After each optimizer step: d = decay * (1 - exp(-updates / tau)) (the ramp lets the average
// follow the fast-changing early weights), then for every floating-point parameter and buffer
//   ema = d * ema + (1 - d) * model
// with two multi-tensor kernels for the whole model; tensors named in `constant` are held as
// they were (ModelEmaOptions). The EMA weights are what validation,
// best.pt and last.pt use.

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace torch::nn {
class Module;
}

namespace libreyolo::core::optim {

struct ModelEmaOptions {
  double decay = 0.9998;  // LibreYOLO TrainConfig.ema_decay (YOLOv9 recipe: 0.9999)
  double tau = 2000;      // LibreYOLO ema_tau (RF-DETR: 100); tau <= 0: constant decay
  // State names the model never changes (freeze='s parameters and BatchNorm statistics): the
  // EMA keeps its copy of them as made, since d * x + (1 - d) * x drifts from x by rounding at
  // every step, and frozen weights must come out of training bit for bit as they went in.
  std::vector<std::string> constant;
};

class ModelEma {
 public:
  // Copies `model`'s parameters and buffers (detached clones on the same device, never
  // requiring grad). `updates` > 0 resumes the ramp where a checkpoint left it.
  explicit ModelEma(const torch::nn::Module& model, ModelEmaOptions options = {},
                    int64_t updates = 0);

  // One EMA step towards `model`'s current weights. The model's tensors are looked up by name
  // once and cached: Module::to() and load-by-copy keep them valid. Passing another module
  // object (same names and shapes) re-binds to it. Integer buffers (BatchNorm's
  // num_batches_tracked) are copied; LibreYOLO leaves them at their initial value, which
  // nothing reads in eval mode.
  void update(const torch::nn::Module& model);

  // update() in its two halves, for a step recorded into a CUDA graph: advance() counts the
  // update and sets its decay (on the host; with use_device_decay also in two device tensors,
  // one fill kernel each), apply() moves the EMA with device work only. A recorded apply()
  // reads the decay the latest advance() wrote.
  void advance();
  void apply(const torch::nn::Module& model);

  // From now on apply() reads d and 1 - d from 0-dim device tensors and computes
  // ema = ema * d + ((1 - d) * model), the product rounded before the sum as in LibreYOLO's
  // ModelEMA. Returns false, changing nothing, where LibTorch lacks the multi-tensor multiply by
  // a tensor (before 2.1) or the EMA lives on the CPU.
  bool use_device_decay();
  // d and 1 - d held in two tensors on the EMA's device from now on, whatever the LibTorch: what
  // use_device_decay does once it has checked that apply() can read them (LibTorch >= 2.1, on
  // CUDA); the fused optimizer step reads them itself and needs no such check (its CPU tests).
  void hold_decay_in_tensors();

  // What the fused optimizer step (amp/fused_optimizer_step.hpp) updates in apply()'s place:
  // the averaged tensors and the model's beside them (bound to `model` first, as apply() binds),
  // the integer buffers copied, and d and 1 - d (undefined until hold_decay_in_tensors).
  struct Averages {
    const std::vector<torch::Tensor>& ema_float;
    const std::vector<torch::Tensor>& model_float;
    const std::vector<torch::Tensor>& ema_int;
    const std::vector<torch::Tensor>& model_int;
    const torch::Tensor& decay;
    const torch::Tensor& keep;
  };
  Averages averages(const torch::nn::Module& model);

  // The decay the next update() will use, and the one for a given update count.
  double decay_at(int64_t updates) const;
  int64_t updates() const { return updates_; }
  void set_updates(int64_t updates) { updates_ = updates; }

  // D-FINE's "EMA restart": a new decay, constant (ramp = false) or ramped with the same tau.
  void set_decay(double decay, bool ramp = false);

  // name -> tensor, with the model's state-dict names and order (parameters, then buffers,
  // module by module as named_parameters()/named_buffers() list them). The tensors are the
  // EMA's own: copy before modifying.
  const std::vector<std::pair<std::string, torch::Tensor>>& state() const { return state_; }

  // Copies the EMA weights into `model` (same names and shapes), e.g. an evaluation copy.
  // Throws core::Error when a name is missing or a shape differs.
  void copy_to(torch::nn::Module& model) const;

  // Overwrites the EMA weights from saved state (names as in state()); for resuming. Throws
  // core::Error when a name is missing or a shape differs.
  void load_state(const std::vector<std::pair<std::string, torch::Tensor>>& saved);

 private:
  void bind(const torch::nn::Module& model);

  ModelEmaOptions options_;
  bool ramp_ = true;
  int64_t updates_ = 0;
  double decay_now_ = 0;                 // what advance() computed for apply()
  torch::Tensor decay_, keep_;           // use_device_decay: d and 1 - d on the device
  std::vector<std::pair<std::string, torch::Tensor>> state_;
  // What update() does with each tensor of state_, in order.
  enum class Role : char { average, copy, hold };
  std::vector<Role> roles_;
  // Lists the multi-tensor kernels take: the EMA's floating-point and integer tensors, and
  // the bound model's tensors in the same order (held tensors are in neither).
  std::vector<torch::Tensor> ema_float_, ema_int_;
  std::vector<torch::Tensor> model_float_, model_int_;
  const torch::nn::Module* bound_ = nullptr;
};

}  // namespace libreyolo::core::optim

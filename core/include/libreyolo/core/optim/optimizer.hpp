#pragma once
// The base of our multi-tensor optimizers (Sgd, AdamW). Each step updates all parameters of a
// group with a handful of at::_foreach_* calls instead of a loop over parameters, and reads
// nothing back from the device. Hyperparameters that change every step (the group lr written by
// the scheduler, SGD momentum) are plain doubles passed to the kernels as scalars: changing them
// allocates nothing.
//
// Why not torch::optim: LibTorch's optimizers loop over parameters (several kernels each), and
// their per-group options live behind a polymorphic pointer the trainer would have to downcast
// every step to set the lr.

#include <torch/types.h>

#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/optim/param_groups.hpp"

namespace libreyolo::core::optim {

// Optimizer state for checkpoints, laid out like torch.optim's state_dict()["state"]:
// "state.<i>.<field>" where i counts parameters across groups in group order
// (fields: momentum_buffer; exp_avg, exp_avg_sq, step).
using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

class Optimizer {
 public:
  // Throws core::Error when a parameter is not a floating-point leaf tensor or the parameters
  // sit on more than one device (one process drives one device).
  explicit Optimizer(std::vector<ParamGroup> groups);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that has a gradient; parameters without one are skipped,
  // as in torch.optim. Runs under NoGradGuard.
  virtual void step() = 0;

  // The same update, skipped on the device when `found_inf` (a 0-dim float tensor on the
  // parameters' device, 1 after an inf/NaN gradient) is set: no host read. Returns false,
  // having done nothing, when this optimizer or LibTorch build cannot (then use step()).
  virtual bool step_unless_found_inf(const torch::Tensor& found_inf) { return false; }

  // Sets every group's lr to `base_lr * lr_mult`: what LibreYOLO's trainer does with the
  // scheduler's value after each step. With use_device_lr, the device copies too (one fill
  // kernel per group, no host read).
  void set_lr(double base_lr);

  // From now on step_unless_found_inf reads each group's lr from a device tensor
  // (ParamGroup::lr_on_device), so that a CUDA graph of the step follows the schedule. Returns
  // false, changing nothing, where this optimizer or LibTorch build cannot.
  virtual bool use_device_lr() { return false; }
  bool has_device_lr() const { return !groups_.empty() && groups_.front().lr_on_device.defined(); }
  // Back to the host lr (the device tensors are dropped).
  void drop_device_lr() {
    for (auto& group : groups_) group.lr_on_device = torch::Tensor();
  }

  // See grad_utils.hpp: set_to_none is the fast default and fits gradient accumulation.
  void zero_grad(bool set_to_none = true);

  std::vector<ParamGroup>& groups() { return groups_; }
  const std::vector<ParamGroup>& groups() const { return groups_; }

  // Every parameter of every group, in group order (for clipping and the grad scaler).
  std::vector<torch::Tensor> parameters() const;

  virtual NamedTensors state() const = 0;
  // Copies saved state in (a parameter without saved state starts fresh, as in torch.optim);
  // throws core::Error on a shape mismatch.
  virtual void load_state(const NamedTensors& state) = 0;

 protected:
  std::vector<ParamGroup> groups_;
};

namespace detail {

// Gives every group its lr_on_device (float32, 0-dim, on its first parameter's device).
void make_device_lr(std::vector<ParamGroup>& groups);

// A group's parameters that have a gradient this step, with their index in the group.
struct ActiveParams {
  std::vector<size_t> index;
  std::vector<torch::Tensor> params;
  std::vector<torch::Tensor> grads;
};
ActiveParams active_params(const ParamGroup& group);

// The saved tensor named `key`, or nullptr when `state` has none (a parameter that never
// stepped has no state, as in torch.optim).
const torch::Tensor* find_state(const NamedTensors& state, const std::string& key);

// A copy of `saved` laid out like `like` (its device, dtype); throws core::Error when the
// shapes differ.
torch::Tensor restored_state(const torch::Tensor& saved, const torch::Tensor& like,
                             const std::string& key);

std::string state_key(size_t index, const char* field);  // "state.<index>.<field>"


}  // namespace detail

}  // namespace libreyolo::core::optim

#pragma once
// Which parameters an optimizer updates, and with what weight decay. LibreYOLO's shared trainer
// splits a model YOLOX-style into three groups, in this order:
//   pg0 "batchnorm": the weight of every BatchNorm module, no decay;
//   pg1 "decay":     the weight of every other module, weight decay;
//   pg2 "bias":      every module's bias, no decay.
// Families with other rules (D-FINE: backbone/head x decay/no-decay with an lr multiplier)
// declare them as name rules, applied by split_by_rules (param_group_rules.hpp); the
// optimizers take any list of groups.

#include <torch/types.h>

#include <string>
#include <vector>

namespace torch::nn {
class Module;
}

namespace libreyolo::core::optim {

struct ParamGroup {
  std::string name;                   // for logs: "batchnorm", "decay", "bias", ...
  std::vector<torch::Tensor> params;  // the module's own parameter handles (not copies)
  double weight_decay = 0.0;
  double lr_mult = 1.0;  // the group's lr is the scheduler's lr times this (D-FINE backbone 0.5)
  double lr = 0.0;       // current lr; Optimizer::set_lr writes it every step
  // The same lr as a 0-dim float32 tensor on the parameters' device, once
  // Optimizer::use_device_lr made it (set_lr writes both): a recorded step reads it there.
  torch::Tensor lr_on_device{};
};

struct ParamSplit {
  std::vector<ParamGroup> groups;  // non-empty groups only, in the order pg0, pg1, pg2
  // Trainable parameters named neither "weight" nor "bias" (a learnable scale, a query
  // embedding stored as a bare parameter). LibreYOLO's trainer leaves them out of every group,
  // so they never train; they are listed here so the caller can log them or add a group.
  std::vector<std::string> ungrouped;
  // split_by_rules (param_group_rules.hpp): rules no parameter fell to, one line each, for
  // the caller to log. Empty from split_param_groups.
  std::vector<std::string> warnings;
};

// Splits `model`'s trainable parameters (requires_grad) as LibreYOLO does. BatchNorm is
// recognised by module type: torch::nn::BatchNorm{1,2,3}d, or any module whose type name
// contains "BatchNorm" (a synchronized BatchNorm of our own) but not "FrozenBatchNorm"
// (sdk::FrozenBatchNorm2d holds buffers only and never trains). A parameter shared by several
// modules is grouped once. `no_decay_weight_decay` is the decay of pg0/pg2: 0 here; LibreYOLO
// leaves it at the optimizer's default, which is also 0 for SGD but 0.01 for AdamW.
// Throws core::Error when no trainable parameter is left (everything frozen).
ParamSplit split_param_groups(const torch::nn::Module& model, double weight_decay,
                              double no_decay_weight_decay = 0.0);

// Whether `module` counts as BatchNorm for the split above.
bool is_batchnorm(const torch::nn::Module& module);

}  // namespace libreyolo::core::optim

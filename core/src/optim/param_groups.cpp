#include "libreyolo/core/optim/param_groups.hpp"

#include <torch/torch.h>

#include <unordered_set>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::optim {

bool is_batchnorm(const torch::nn::Module& module) {
  if (dynamic_cast<const torch::nn::BatchNorm1dImpl*>(&module) != nullptr ||
      dynamic_cast<const torch::nn::BatchNorm2dImpl*>(&module) != nullptr ||
      dynamic_cast<const torch::nn::BatchNorm3dImpl*>(&module) != nullptr) {
    return true;
  }
  // LibreYOLO matches PyTorch's _BatchNorm base, which SyncBatchNorm also derives from. LibTorch
  // has no such common base, so a BatchNorm of our own (synchronized across ranks) is
  // recognised by its type name. FrozenBatchNorm2d (the SDK's, or a family's own) is no
  // _BatchNorm in LibreYOLO either: it holds buffers only and never trains.
  const std::string type = module.name();
  return type.find("BatchNorm") != std::string::npos &&
         type.find("FrozenBatchNorm") == std::string::npos;
}

ParamSplit split_param_groups(const torch::nn::Module& model, double weight_decay,
                              double no_decay_weight_decay) {
  ParamGroup batchnorm{"batchnorm", {}, no_decay_weight_decay};
  ParamGroup decay{"decay", {}, weight_decay};
  ParamGroup bias{"bias", {}, no_decay_weight_decay};
  ParamSplit split;
  std::unordered_set<const void*> seen;  // shared parameters are optimized once

  auto visit = [&](const std::string& prefix, const torch::nn::Module& module) {
    const bool bn = is_batchnorm(module);
    for (const auto& item : module.named_parameters(/*recurse=*/false)) {
      const torch::Tensor& param = item.value();
      if (!param.requires_grad()) continue;  // frozen
      if (!seen.insert(param.unsafeGetTensorImpl()).second) continue;
      if (item.key() == "bias") {
        bias.params.push_back(param);
      } else if (item.key() == "weight") {
        (bn ? batchnorm : decay).params.push_back(param);
      } else {
        split.ungrouped.push_back(prefix.empty() ? item.key() : prefix + "." + item.key());
      }
    }
  };
  // The root is visited on its own: named_modules() can only include it when the model is
  // held by a shared_ptr, which a caller's plain module need not be.
  visit("", model);
  for (const auto& item : model.named_modules(/*name_prefix=*/"", /*include_self=*/false)) {
    visit(item.key(), *item.value());
  }

  for (ParamGroup* group : {&batchnorm, &decay, &bias}) {
    if (!group->params.empty()) split.groups.push_back(std::move(*group));
  }
  if (split.groups.empty()) {
    throw Error("The model has no trainable parameters",
                "every parameter has requires_grad=false (layer freezing froze them all)",
                "freeze fewer layers");
  }
  return split;
}

}  // namespace libreyolo::core::optim

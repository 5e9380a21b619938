#include "libreyolo/core/optim/unique_parameters.hpp"

#include <unordered_set>

namespace libreyolo::core::optim {

std::vector<NamedParameter> unique_named_parameters(const torch::nn::Module& model) {
  std::vector<NamedParameter> out;
  std::unordered_set<const void*> seen;
  for (const auto& item : model.named_parameters(/*recurse=*/true)) {
    const torch::Tensor& tensor = item.value();
    if (!tensor.defined() || !seen.insert(tensor.unsafeGetTensorImpl()).second) continue;
    out.push_back({item.key(), tensor});
  }
  return out;
}

std::vector<torch::Tensor> unique_parameters(const torch::nn::Module& model, bool trainable_only) {
  std::vector<torch::Tensor> out;
  for (auto& parameter : unique_named_parameters(model)) {
    if (!trainable_only || parameter.tensor.requires_grad()) out.push_back(std::move(parameter.tensor));
  }
  return out;
}

int64_t parameter_count(const torch::nn::Module& model) {
  int64_t count = 0;
  for (const auto& parameter : unique_named_parameters(model)) count += parameter.tensor.numel();
  return count;
}

}  // namespace libreyolo::core::optim

#include "deterministic_weights.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace libreyolo::test {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

torch::Tensor pattern(int64_t count, int64_t seed) {
  const auto i = torch::arange(count, torch::kFloat64);
  const auto x = torch::sin(i * 12.9898 + static_cast<double>(seed) * 78.233) * 43758.5453;
  return (2.0 * (x - torch::floor(x)) - 1.0).to(torch::kFloat32);
}

void fill_deterministic(torch::nn::Module& module, bool scale_matrices) {
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& item : module.named_parameters(true)) tensors.emplace_back(item.key(), item.value());
  for (const auto& item : module.named_buffers(true)) tensors.emplace_back(item.key(), item.value());
  std::sort(tensors.begin(), tensors.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  torch::NoGradGuard no_grad;
  for (size_t index = 0; index < tensors.size(); ++index) {
    auto& [key, tensor] = tensors[index];
    if (ends_with(key, "num_batches_tracked")) continue;
    auto values = pattern(tensor.numel(), static_cast<int64_t>(index)).view(tensor.sizes());
    if (ends_with(key, "running_var")) {
      values = 1.0 + 0.5 * values.abs();
    } else if (ends_with(key, "running_mean") || ends_with(key, "bias")) {
      values = 0.1 * values;
    } else if (tensor.dim() == 4) {
      const auto fan_in = static_cast<double>(tensor.size(1) * tensor.size(2) * tensor.size(3));
      values = values * (2.5 / std::sqrt(fan_in));
    } else if (scale_matrices && tensor.dim() == 2) {
      values = values / std::sqrt(static_cast<double>(tensor.size(1)));
    } else {
      values = 1.0 + 0.1 * values;
    }
    tensor.copy_(values);
  }
}

}  // namespace libreyolo::test

#include "module_copy.hpp"

namespace libreyolo::sdk::detail {
namespace {

void copy_values(const torch::OrderedDict<std::string, torch::Tensor>& from,
                 torch::OrderedDict<std::string, torch::Tensor>& to, const c10::optional<torch::Device>& device) {
  for (const auto& item : from) {
    const auto& source = item.value();
    if (!source.defined()) continue;
    const auto options = source.options().device(device ? *device : source.device());
    to[item.key()].set_data(source.to(options, /*non_blocking=*/false, /*copy=*/true));
  }
}

}  // namespace

void copy_own_values(const torch::nn::Module& from, torch::nn::Module& to, const c10::optional<torch::Device>& device) {
  torch::NoGradGuard no_grad;
  auto parameters = to.named_parameters(/*recurse=*/false);
  auto buffers = to.named_buffers(/*recurse=*/false);
  copy_values(from.named_parameters(/*recurse=*/false), parameters, device);
  copy_values(from.named_buffers(/*recurse=*/false), buffers, device);
}

}  // namespace libreyolo::sdk::detail

#include "libreyolo/sdk/linear.hpp"

#include <torch/torch.h>

#include "module_copy.hpp"

namespace libreyolo::sdk {

LinearImpl::~LinearImpl() = default;

torch::Tensor LinearImpl::forward(const torch::Tensor& input) { return torch::linear(input, weight, bias); }

std::shared_ptr<torch::nn::Module> LinearImpl::clone(const c10::optional<torch::Device>& device) const {
  auto copy = std::make_shared<LinearImpl>(options);
  detail::copy_own_values(*this, *copy, device);
  copy->train(is_training());
  return copy;
}

}  // namespace libreyolo::sdk

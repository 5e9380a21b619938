#include "libreyolo/sdk/detr/mlp.hpp"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace libreyolo::sdk::detr {

MlpImpl::MlpImpl(int64_t input_dim, int64_t hidden_dim, int64_t output_dim, int64_t num_layers) {
  if (num_layers < 1)
    throw std::invalid_argument("DETR MLP: at least one layer is needed, got num_layers=" +
                                std::to_string(num_layers));
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < num_layers; ++i) {
    const int64_t in = i == 0 ? input_dim : hidden_dim;
    const int64_t out = i + 1 == num_layers ? output_dim : hidden_dim;
    layers->push_back(sdk::Linear(in, out));
  }
}

sdk::Linear MlpImpl::layer(size_t i) const { return sdk::Linear(layers->ptr<sdk::LinearImpl>(i)); }

torch::Tensor MlpImpl::forward(torch::Tensor x) {
  const auto n = layers->size();
  for (size_t i = 0; i < n; ++i) {
    x = layer(i)->forward(x);
    if (i + 1 < n) x = torch::relu(x);
  }
  return x;
}

void MlpImpl::zero_last() {
  torch::NoGradGuard no_grad;
  auto linear = last();
  linear->weight.zero_();
  linear->bias.zero_();
}

}  // namespace libreyolo::sdk::detr

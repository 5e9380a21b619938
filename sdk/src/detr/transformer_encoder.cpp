#include "libreyolo/sdk/detr/transformer_encoder.hpp"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace libreyolo::sdk::detr {

torch::Tensor sincos_position_embedding_2d(int64_t w, int64_t h, int64_t dim, double temperature,
                                           const torch::Device& device) {
  if (dim <= 0 || dim % 4 != 0)
    throw std::invalid_argument("sin-cos position embedding: the dimension must be a positive multiple of 4 (one "
                                "quarter each for sin/cos of x and y), got " + std::to_string(dim));
  if (w <= 0 || h <= 0)
    throw std::invalid_argument("sin-cos position embedding: the feature map is empty (" + std::to_string(w) + " x " +
                                std::to_string(h) + ")");
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  const int64_t quarter = dim / 4;
  const auto frequency = 1.0 / torch::pow(temperature, torch::arange(quarter, options) / static_cast<double>(quarter));
  // meshgrid(arange(w), arange(h), indexing="ij") flattened: x varies slowest.
  const auto x = torch::arange(w, options).repeat_interleave(h);
  const auto y = torch::arange(h, options).repeat({w});
  const auto phase_x = x.unsqueeze(1) * frequency.unsqueeze(0);
  const auto phase_y = y.unsqueeze(1) * frequency.unsqueeze(0);
  return torch::cat({phase_x.sin(), phase_x.cos(), phase_y.sin(), phase_y.cos()}, 1).unsqueeze(0);
}

TransformerEncoderLayer::TransformerEncoderLayer(const TransformerEncoderLayerOptions& options)
    : dropout_(options.dropout) {
  self_attn_ = register_module("self_attn", MultiheadAttention(options.d_model, options.nhead, options.dropout));
  linear1_ = register_module("linear1", sdk::Linear(options.d_model, options.dim_feedforward));
  linear2_ = register_module("linear2", sdk::Linear(options.dim_feedforward, options.d_model));
  norm1_ = register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.d_model})));
  norm2_ = register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.d_model})));
}

// No dropout kernel at all when the rate is 0 (every LibreYOLO DETR config): nothing to capture.
torch::Tensor TransformerEncoderLayer::dropped(const torch::Tensor& t) const {
  return dropout_ > 0.0 ? torch::dropout(t, dropout_, is_training()) : t;
}

torch::Tensor TransformerEncoderLayer::forward(const torch::Tensor& src, const torch::Tensor& pos_embed) {
  const auto query_key = src + pos_embed;
  const auto x = norm1_->forward(src + dropped(self_attn_->forward(query_key, query_key, src)));
  const auto feedforward = linear2_->forward(dropped(torch::gelu(linear1_->forward(x))));
  return norm2_->forward(x + dropped(feedforward));
}

void copy_parameters(const torch::nn::Module& from, torch::nn::Module& to) {
  torch::NoGradGuard no_grad;
  const auto source = from.named_parameters(/*recurse=*/true);
  for (auto& item : to.named_parameters(/*recurse=*/true)) item.value().copy_(source[item.key()]);
}

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayerOptions& options, int64_t num_layers) {
  auto layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < num_layers; ++i) {
    layers_.push_back(std::make_shared<TransformerEncoderLayer>(options));
    if (i > 0) copy_parameters(*layers_.front(), *layers_.back());
    layers->push_back(layers_.back());
  }
}

torch::Tensor TransformerEncoder::forward(const torch::Tensor& src, const torch::Tensor& pos_embed) {
  auto x = src;
  for (auto& layer : layers_) x = layer->forward(x, pos_embed);
  return x;
}

}  // namespace libreyolo::sdk::detr

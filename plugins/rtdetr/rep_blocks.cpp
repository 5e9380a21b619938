#include "rep_blocks.hpp"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace libreyolo::rtdetr {
namespace {

std::shared_ptr<ConvNormLayer> conv_norm(int64_t in, int64_t out, int64_t kernel, int64_t padding, Activation act) {
  ConvNormOptions options{in, out, kernel};
  options.padding = padding;
  options.act = act;
  return std::make_shared<ConvNormLayer>(options);
}

}  // namespace

RepVggBlock::RepVggBlock(int64_t in_channels, int64_t out_channels, Activation act) : act_(act) {
  conv1_ = register_module("conv1", conv_norm(in_channels, out_channels, 3, 1, Activation::none));
  conv2_ = register_module("conv2", conv_norm(in_channels, out_channels, 1, 0, Activation::none));
}

torch::Tensor RepVggBlock::forward(const torch::Tensor& x) {
  return apply_activation(act_, conv1_->forward(x) + conv2_->forward(x));
}

CSPRepLayer::CSPRepLayer(int64_t in_channels, int64_t out_channels, int64_t num_blocks, double expansion,
                         Activation act) {
  // Python's int(): truncation toward zero.
  const auto hidden = static_cast<int64_t>(static_cast<double>(out_channels) * expansion);
  if (hidden <= 0)
    throw std::invalid_argument("CSPRepLayer: expansion " + std::to_string(expansion) + " leaves no hidden channels of " +
                                std::to_string(out_channels) + "; use an expansion in (0, 1]");
  conv1_ = register_module("conv1", conv_norm(in_channels, hidden, 1, 0, act));
  conv2_ = register_module("conv2", conv_norm(in_channels, hidden, 1, 0, act));
  auto bottlenecks = register_module("bottlenecks", torch::nn::ModuleList());
  for (int64_t i = 0; i < num_blocks; ++i) {
    bottlenecks_.push_back(std::make_shared<RepVggBlock>(hidden, hidden, act));
    bottlenecks->push_back(bottlenecks_.back());
  }
  if (hidden != out_channels) conv3_ = register_module("conv3", conv_norm(hidden, out_channels, 1, 0, act));
}

torch::Tensor CSPRepLayer::forward(const torch::Tensor& x) {
  auto y = conv1_->forward(x);
  for (auto& block : bottlenecks_) y = block->forward(y);
  y = y + conv2_->forward(x);
  return conv3_ ? conv3_->forward(y) : y;
}

}  // namespace libreyolo::rtdetr

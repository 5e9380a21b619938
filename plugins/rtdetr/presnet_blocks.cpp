#include "presnet_blocks.hpp"

#include <torch/torch.h>

namespace libreyolo::rtdetr {

PooledShortcut::PooledShortcut(int64_t in_channels, int64_t out_channels, bool frozen_norm) {
  ConvNormOptions conv{in_channels, out_channels, 1};
  conv.frozen_norm = frozen_norm;
  conv_ = register_module("conv", std::make_shared<ConvNormLayer>(conv));
}

torch::Tensor PooledShortcut::forward(const torch::Tensor& x) {
  // ceil_mode keeps the last row/column of odd-sized maps, as the strided branch does.
  return conv_->forward(torch::avg_pool2d(x, {2, 2}, {2, 2}, {0, 0}, /*ceil_mode=*/true));
}

namespace {

std::shared_ptr<ConvNormLayer> conv_norm(int64_t in, int64_t out, int64_t kernel, int64_t stride, bool relu,
                                         bool frozen_norm) {
  ConvNormOptions options{in, out, kernel, stride};
  options.act = relu ? Activation::relu : Activation::none;
  options.frozen_norm = frozen_norm;
  return std::make_shared<ConvNormLayer>(options);
}

}  // namespace

ResidualBlock::ResidualBlock(const ResidualBlockSpec& spec)
    : out_channels_(spec.bottleneck ? 4 * spec.width : spec.width) {
  const bool frozen = spec.frozen_norm;
  if (spec.bottleneck) {
    // Variant "d" (like "b") strides in the 3x3 conv, not in the first 1x1.
    branch2a_ = register_module("branch2a", conv_norm(spec.in_channels, spec.width, 1, 1, true, frozen));
    branch2b_ = register_module("branch2b", conv_norm(spec.width, spec.width, 3, spec.stride, true, frozen));
    branch2c_ = register_module("branch2c", conv_norm(spec.width, out_channels_, 1, 1, false, frozen));
    register_shortcut(spec);
  } else {
    register_shortcut(spec);
    branch2a_ = register_module("branch2a", conv_norm(spec.in_channels, spec.width, 3, spec.stride, true, frozen));
    branch2b_ = register_module("branch2b", conv_norm(spec.width, spec.width, 3, 1, false, frozen));
  }
}

void ResidualBlock::register_shortcut(const ResidualBlockSpec& spec) {
  if (spec.identity_shortcut) return;
  if (spec.stride == 2) {
    short_pooled_ =
        register_module("short", std::make_shared<PooledShortcut>(spec.in_channels, out_channels_, spec.frozen_norm));
  } else {
    short_conv_ = register_module(
        "short", conv_norm(spec.in_channels, out_channels_, 1, spec.stride, false, spec.frozen_norm));
  }
}

torch::Tensor ResidualBlock::forward(const torch::Tensor& x) {
  auto y = branch2b_->forward(branch2a_->forward(x));
  if (branch2c_) y = branch2c_->forward(y);
  const auto shortcut = short_pooled_ ? short_pooled_->forward(x) : short_conv_ ? short_conv_->forward(x) : x;
  return torch::relu(y + shortcut);
}

ResStage::ResStage(bool bottleneck, int64_t in_channels, int64_t width, int64_t count, bool first_stage,
                   bool frozen_norm) {
  auto blocks = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < count; ++i) {
    const bool first = i == 0;
    const ResidualBlockSpec spec{bottleneck,          first ? in_channels : blocks_.back()->out_channels(), width,
                                 first && !first_stage ? 2 : 1, !first,  frozen_norm};
    blocks_.push_back(std::make_shared<ResidualBlock>(spec));
    blocks->push_back(blocks_.back());
  }
}

torch::Tensor ResStage::forward(const torch::Tensor& x) {
  auto y = x;
  for (auto& block : blocks_) y = block->forward(y);
  return y;
}

}  // namespace libreyolo::rtdetr

#include "blocks.hpp"

#include <libreyolo/sdk/max_pool_same.hpp>

#include <torch/torch.h>

namespace libreyolo::families::rtmdet {

ConvBNAct::ConvBNAct(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride, int64_t padding,
                     int64_t groups) {
  conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, out_channels, kernel_size)
                                                       .stride(stride)
                                                       .padding(padding)
                                                       .groups(groups)
                                                       .bias(false)));
  bn = register_module("bn", sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(out_channels)
                                                  .eps(kBatchNormEps)
                                                  .momentum(kBatchNormMomentum)));
}

torch::Tensor ConvBNAct::forward(const torch::Tensor& x) { return torch::silu(bn->forward(conv->forward(x))); }

void ConvBNAct::share_conv_of(const ConvBNAct& other) {
  // replace_module keeps the child's position, so "conv" still comes before "bn" in state_dict.
  conv = torch::nn::Conv2d(replace_module("conv", other.conv));
}

DepthwiseSeparableConv::DepthwiseSeparableConv(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                                               int64_t padding) {
  depthwise_conv = register_module(
      "depthwise_conv", std::make_shared<ConvBNAct>(in_channels, in_channels, kernel_size, 1, padding, in_channels));
  pointwise_conv = register_module("pointwise_conv", std::make_shared<ConvBNAct>(in_channels, out_channels, 1));
}

torch::Tensor DepthwiseSeparableConv::forward(const torch::Tensor& x) {
  return pointwise_conv->forward(depthwise_conv->forward(x));
}

ChannelAttention::ChannelAttention(int64_t channels) {
  fc = register_module("fc", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, channels, 1).bias(true)));
}

torch::Tensor ChannelAttention::forward(const torch::Tensor& x) {
  const auto pooled = torch::adaptive_avg_pool2d(x, {1, 1});
  return x * torch::hardsigmoid(fc->forward(pooled));
}

CSPNeXtBlock::CSPNeXtBlock(int64_t in_channels, int64_t out_channels, double expansion, bool add_identity)
    : add_identity_(add_identity && in_channels == out_channels) {
  constexpr int64_t kDepthwiseKernel = 5;
  const auto hidden = static_cast<int64_t>(static_cast<double>(out_channels) * expansion);
  conv1 = register_module("conv1", std::make_shared<ConvBNAct>(in_channels, hidden, 3, 1, 1));
  conv2 = register_module(
      "conv2", std::make_shared<DepthwiseSeparableConv>(hidden, out_channels, kDepthwiseKernel, kDepthwiseKernel / 2));
}

torch::Tensor CSPNeXtBlock::forward(const torch::Tensor& x) {
  auto y = conv2->forward(conv1->forward(x));
  return add_identity_ ? y + x : y;
}

CSPLayer::CSPLayer(int64_t in_channels, int64_t out_channels, int64_t num_blocks, bool add_identity,
                   bool channel_attention) {
  const int64_t mid = out_channels / 2;  // int(out_channels * 0.5)
  main_conv = register_module("main_conv", std::make_shared<ConvBNAct>(in_channels, mid, 1));
  short_conv = register_module("short_conv", std::make_shared<ConvBNAct>(in_channels, mid, 1));
  final_conv = register_module("final_conv", std::make_shared<ConvBNAct>(2 * mid, out_channels, 1));
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < num_blocks; ++i) {
    blocks_.push_back(std::make_shared<CSPNeXtBlock>(mid, mid, 1.0, add_identity));
    blocks->push_back(blocks_.back());
  }
  if (channel_attention) attention = register_module("attention", std::make_shared<ChannelAttention>(2 * mid));
}

torch::Tensor CSPLayer::forward(const torch::Tensor& x) {
  auto main = main_conv->forward(x);
  for (const auto& block : blocks_) main = block->forward(main);
  auto joined = torch::cat({main, short_conv->forward(x)}, 1);
  if (attention) joined = attention->forward(joined);
  return final_conv->forward(joined);
}

SPPBottleneck::SPPBottleneck(int64_t in_channels, int64_t out_channels) {
  const int64_t mid = in_channels / 2;
  conv1 = register_module("conv1", std::make_shared<ConvBNAct>(in_channels, mid, 1));
  conv2 = register_module("conv2", std::make_shared<ConvBNAct>(mid * 4, out_channels, 1));
}

torch::Tensor SPPBottleneck::forward(const torch::Tensor& x) {
  const auto y = conv1->forward(x);
  std::vector<torch::Tensor> parts{y};
  for (const int64_t k : {5, 9, 13}) parts.push_back(sdk::max_pool_same(y, k));  // max_pool2d(y, k, 1, k // 2)
  return conv2->forward(torch::cat(parts, 1));
}

}  // namespace libreyolo::families::rtmdet

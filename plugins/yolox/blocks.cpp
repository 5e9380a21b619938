#include "blocks.hpp"

#include <libreyolo/sdk/aligned_channels.hpp>
#include <libreyolo/sdk/batch_norm_silu.hpp>
#include <libreyolo/sdk/block_tails.hpp>
#include <libreyolo/sdk/image_convolutions.hpp>
#include <libreyolo/sdk/max_pool_same.hpp>
#include <libreyolo/sdk/side_by_side.hpp>
#include <torch/torch.h>

namespace libreyolo::families::yolox {

BaseConv::BaseConv(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride, int64_t groups) {
  conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, out_channels, kernel_size)
                                                       .stride(stride)
                                                       .padding((kernel_size - 1) / 2)
                                                       .groups(groups)
                                                       .bias(false)));
  bn = register_module("bn", sdk::BatchNorm2d(
                                 torch::nn::BatchNorm2dOptions(out_channels).eps(kBatchNormEps).momentum(kBatchNormMomentum)));
}

// batch_norm_silu is silu(bn(x)) exactly unless fused_kernels=auto picks the fused kernel.
torch::Tensor BaseConv::forward(const torch::Tensor& x) {
  return sdk::batch_norm_silu(bn, conv->forward(x));
}

torch::Tensor BaseConv::forward_plus(const torch::Tensor& x, const torch::Tensor& residual) {
  return sdk::batch_norm_silu_add(bn, conv->forward(x), residual);
}

DWConv::DWConv(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride) {
  dconv = register_module("dconv", std::make_shared<BaseConv>(in_channels, in_channels, kernel_size, stride, in_channels));
  pconv = register_module("pconv", std::make_shared<BaseConv>(in_channels, out_channels, 1, 1));
}

torch::Tensor DWConv::forward(const torch::Tensor& x) { return pconv->forward(dconv->forward(x)); }

torch::Tensor DWConv::forward_plus(const torch::Tensor& x, const torch::Tensor& residual) {
  return pconv->forward_plus(dconv->forward(x), residual);
}

std::shared_ptr<ConvLike> make_conv(bool depthwise, int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                                    int64_t stride) {
  if (depthwise) return std::make_shared<DWConv>(in_channels, out_channels, kernel_size, stride);
  return std::make_shared<BaseConv>(in_channels, out_channels, kernel_size, stride);
}

Bottleneck::Bottleneck(int64_t in_channels, int64_t out_channels, bool shortcut, double expansion, bool depthwise)
    : use_add_(shortcut && in_channels == out_channels) {
  const auto hidden = static_cast<int64_t>(static_cast<double>(out_channels) * expansion);
  conv1 = register_module("conv1", std::make_shared<BaseConv>(in_channels, hidden, 1, 1));
  conv2 = register_module("conv2", make_conv(depthwise, hidden, out_channels, 3, 1));
}

torch::Tensor Bottleneck::forward(const torch::Tensor& x) {
  const auto y = conv1->forward(x);
  return use_add_ ? conv2->forward_plus(y, x) : conv2->forward(y);
}

CSPLayer::CSPLayer(int64_t in_channels, int64_t out_channels, int64_t n, bool shortcut, bool depthwise) {
  const int64_t hidden = out_channels / 2;  // int(out_channels * 0.5)
  conv1 = register_module("conv1", std::make_shared<BaseConv>(in_channels, hidden, 1, 1));
  conv2 = register_module("conv2", std::make_shared<BaseConv>(in_channels, hidden, 1, 1));
  conv3 = register_module("conv3", std::make_shared<BaseConv>(2 * hidden, out_channels, 1, 1));
  m = register_module("m", torch::nn::ModuleList());
  for (int64_t i = 0; i < n; ++i) {
    bottlenecks_.push_back(std::make_shared<Bottleneck>(hidden, hidden, shortcut, 1.0, depthwise));
    m->push_back(bottlenecks_.back());
  }
}

torch::Tensor CSPLayer::forward(const torch::Tensor& x) {
  // The bottleneck chain (the long branch, first) and the shortcut convolution meet at the concatenation.
  const auto chain = [&] {
    auto y = conv1->forward(x);
    for (const auto& bottleneck : bottlenecks_) y = bottleneck->forward(y);
    return y;
  };
  return conv3->forward(torch::cat(sdk::side_by_side({x}, {chain, [&] { return conv2->forward(x); }}), 1));
}

SPPBottleneck::SPPBottleneck(int64_t in_channels, int64_t out_channels) {
  const int64_t hidden = in_channels / 2;
  conv1 = register_module("conv1", std::make_shared<BaseConv>(in_channels, hidden, 1, 1));
  conv2 = register_module("conv2", std::make_shared<BaseConv>(hidden * 4, out_channels, 1, 1));
}

torch::Tensor SPPBottleneck::forward(const torch::Tensor& x) {
  const auto y = conv1->forward(x);
  std::vector<torch::Tensor> parts{y};
  for (const int64_t k : {5, 9, 13}) parts.push_back(sdk::max_pool_same(y, k));  // max_pool2d(y, k, 1, k // 2)
  return conv2->forward(torch::cat(parts, 1));
}

Focus::Focus(int64_t in_channels, int64_t out_channels, int64_t kernel_size) {
  conv = register_module("conv", std::make_shared<BaseConv>(in_channels * 4, out_channels, kernel_size, 1));
}

torch::Tensor Focus::forward(const torch::Tensor& x) {
  // Under image_convolutions the SDK's kernels read the image's phases directly: no 12-channel tensor.
  if (sdk::focus_conv3x3_chosen(*conv->conv, x)) return sdk::batch_norm_silu(conv->bn, sdk::focus_conv3x3(conv->conv, x));
  const int64_t h = x.size(2), w = x.size(3);
  const auto top = x.slice(2, 0, h, 2), bottom = x.slice(2, 1, h, 2);
  const auto top_left = top.slice(3, 0, w, 2), top_right = top.slice(3, 1, w, 2);
  const auto bottom_left = bottom.slice(3, 0, w, 2), bottom_right = bottom.slice(3, 1, w, 2);
  // Twelve channels from an image: under aligned_channels the concatenation writes sixteen (four
  // zero), which cuDNN convolves without padding them itself (sdk/aligned_channels.hpp).
  const auto phases = sdk::concat_channels_aligned({top_left, bottom_left, top_right, bottom_right});
  return sdk::batch_norm_silu(conv->bn, sdk::conv2d_aligned(conv->conv, phases));
}

}  // namespace libreyolo::families::yolox

#include "blocks.hpp"

#include <libreyolo/sdk/avg_pool_2x2.hpp>
#include <libreyolo/sdk/batch_norm_silu.hpp>
#include <libreyolo/sdk/block_tails.hpp>
#include <libreyolo/sdk/convolutions.hpp>
#include <libreyolo/sdk/dense_slices.hpp>
#include <libreyolo/sdk/max_pool_same.hpp>
#include <libreyolo/sdk/side_by_side.hpp>
#include <libreyolo/sdk/stacked_convolutions.hpp>
#include <torch/torch.h>

namespace libreyolo::families::yolo9 {

ConvImpl::ConvImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
                   int64_t padding, int64_t groups, bool activation)
    : activation_(activation) {
  const int64_t pad = padding >= 0 ? padding : (kernel_size - 1) / 2;
  conv = register_module(
      "conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, out_channels, kernel_size)
                                    .stride(stride)
                                    .padding(pad)
                                    .groups(groups)
                                    .bias(false)));
  bn = register_module("bn", sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(out_channels)
                                                 .eps(kBatchNormEps)
                                                 .momentum(kBatchNormMomentum)));
}

torch::Tensor ConvImpl::forward(const torch::Tensor& x) {
  // batch_norm_silu is silu(bn(x)) exactly unless fused_kernels=auto picks the fused kernel.
  // convolve is conv->forward(x) unless the policy picks one of the SDK's convolution kernels.
  const auto y = sdk::convolve(conv, x);
  return activation_ ? sdk::batch_norm_silu(bn, y) : bn->forward(y);
}

torch::Tensor ConvImpl::forward_plus(const torch::Tensor& x, const torch::Tensor& residual) {
  if (!activation_) return forward(x) + residual;
  return sdk::batch_norm_silu_add(bn, sdk::convolve(conv, x), residual);
}

RepConvNImpl::RepConvNImpl(int64_t in_channels, int64_t out_channels, int64_t stride, int64_t groups) {
  conv1 = register_module("conv1", Conv(in_channels, out_channels, 3, stride, 1, groups, false));
  conv2 = register_module("conv2", Conv(in_channels, out_channels, 1, stride, 0, groups, false));
}

torch::Tensor RepConvNImpl::forward(const torch::Tensor& x) {
  // fused_kernels=stacked_convolutions: both branches as one convolution and one BatchNorm over
  // the stacked channels, whose halves meet at the addition (within rounding, not bit for bit).
  const std::vector<sdk::ConvolutionBranch> pair{{*conv1->conv, *conv1->bn}, {*conv2->conv, *conv2->bn}};
  if (sdk::stacked_convolutions_chosen(pair, x)) {
    const auto both = sdk::stacked_convolutions(pair, x);
    const int64_t half = both.size(1) / 2;
    return torch::silu(both.narrow(1, 0, half) + both.narrow(1, half, half));
  }
  // The 3x3 and the 1x1 branch read x alone and meet at the addition.
  const auto branches =
      sdk::side_by_side({x}, {[&] { return conv1->forward(x); }, [&] { return conv2->forward(x); }});
  return sdk::add_silu(branches[0], branches[1]);  // silu(sum), in one kernel where fused_kernels allows
}

RepNBottleneckImpl::RepNBottleneckImpl(int64_t in_channels, int64_t out_channels, bool shortcut,
                                       double expansion)
    : add_(shortcut && in_channels == out_channels) {
  const auto hidden = static_cast<int64_t>(static_cast<double>(out_channels) * expansion);
  cv1 = register_module("cv1", RepConvN(in_channels, hidden));
  cv2 = register_module("cv2", Conv(hidden, out_channels, 3, 1));
}

torch::Tensor RepNBottleneckImpl::forward(const torch::Tensor& x) {
  const auto y = cv1->forward(x);
  return add_ ? cv2->forward_plus(y, x) : cv2->forward(y);
}

RepNCSPImpl::RepNCSPImpl(int64_t in_channels, int64_t out_channels, int64_t repeats) {
  const int64_t hidden = out_channels / 2;  // int(c2 * 0.5)
  cv1 = register_module("cv1", Conv(in_channels, hidden, 1, 1));
  cv2 = register_module("cv2", Conv(in_channels, hidden, 1, 1));
  cv3 = register_module("cv3", Conv(2 * hidden, out_channels, 1));
  m = register_module("m", torch::nn::ModuleList());
  for (int64_t i = 0; i < repeats; ++i) {
    bottlenecks_.emplace_back(hidden, hidden, true, 1.0);
    m->push_back(bottlenecks_.back());
  }
}

torch::Tensor RepNCSPImpl::forward(const torch::Tensor& x) {
  // The bottleneck chain (the long branch, first) and the shortcut convolution meet at the concatenation.
  const auto chain = [&] {
    auto y = cv1->forward(x);
    for (auto& bottleneck : bottlenecks_) y = bottleneck->forward(y);
    return y;
  };
  return cv3->forward(torch::cat(sdk::side_by_side({x}, {chain, [&] { return cv2->forward(x); }}), 1));
}

RepNCSPConvImpl::RepNCSPConvImpl(int64_t in_channels, int64_t out_channels, int64_t repeats) {
  csp = register_module("0", RepNCSP(in_channels, out_channels, repeats));
  conv = register_module("1", Conv(out_channels, out_channels, 3, 1));
}

torch::Tensor RepNCSPConvImpl::forward(const torch::Tensor& x) {
  return conv->forward(csp->forward(x));
}

ELANImpl::ELANImpl(int64_t c1, int64_t c2, int64_t c3, int64_t c4, int64_t n) {
  cv1 = register_module("cv1", Conv(c1, c2, 1, 1));
  cv2 = register_module("cv2", Conv(c2 / 2, c3, 3, 1));
  cv3 = register_module("cv3", Conv(c3, c3, 3, 1));
  cv4 = register_module("cv4", Conv(c2 + c3 * (1 + n), c4, 1, 1));
  m = register_module("m", torch::nn::ModuleList());
  for (int64_t i = 0; i + 1 < n; ++i) {
    extra_.emplace_back(c3, c3, 3, 1);
    m->push_back(extra_.back());
  }
}

torch::Tensor ELANImpl::forward(const torch::Tensor& x) {
  auto y = cv1->forward(x).chunk(2, 1);
  y.back() = sdk::dense_slice(y.back());  // read by cv2 and the concatenation
  y.push_back(cv2->forward(y.back()));
  y.push_back(cv3->forward(y.back()));
  for (auto& conv : extra_) y.push_back(conv->forward(y.back()));
  return cv4->forward(torch::cat(y, 1));
}

RepNCSPELANImpl::RepNCSPELANImpl(int64_t c1, int64_t c2, int64_t c3, int64_t c4, int64_t n) {
  cv1 = register_module("cv1", Conv(c1, c2, 1, 1));
  cv2 = register_module("cv2", RepNCSPConv(c2 / 2, c3, n));
  cv3 = register_module("cv3", RepNCSPConv(c3, c3, n));
  cv4 = register_module("cv4", Conv(c2 + 2 * c3, c4, 1, 1));
}

torch::Tensor RepNCSPELANImpl::forward(const torch::Tensor& x) {
  auto y = cv1->forward(x).chunk(2, 1);
  y.back() = sdk::dense_slice(y.back());  // read by RepNCSP's two 1x1 convolutions and the concatenation
  y.push_back(cv2->forward(y.back()));
  y.push_back(cv3->forward(y.back()));
  return cv4->forward(torch::cat(y, 1));
}

namespace {
// F.avg_pool2d(x, 2, 1, 0, ceil_mode=False, count_include_pad=True); the SDK's kernel where the
// fused_kernels policy allows it (the same output bits, a fraction of PyTorch's channels-last time).
torch::Tensor smooth(const torch::Tensor& x) { return sdk::avg_pool_2x2(x); }
}  // namespace

AConvImpl::AConvImpl(int64_t in_channels, int64_t out_channels) {
  cv = register_module("cv", Conv(in_channels, out_channels, 3, 2, 1));
}

torch::Tensor AConvImpl::forward(const torch::Tensor& x) { return cv->forward(smooth(x)); }

ADownImpl::ADownImpl(int64_t in_channels, int64_t out_channels) {
  const int64_t half = out_channels / 2;
  cv1 = register_module("cv1", Conv(in_channels / 2, half, 3, 2, 1));
  cv2 = register_module("cv2", Conv(in_channels / 2, half, 1, 1, 0));
}

torch::Tensor ADownImpl::forward(const torch::Tensor& x) {
  const auto halves = smooth(x).chunk(2, 1);
  auto a = cv1->forward(sdk::dense_slice(halves[0]));
  auto b = cv2->forward(torch::max_pool2d(sdk::dense_slice(halves[1]), {3, 3}, {2, 2}, {1, 1}));
  return torch::cat({a, b}, 1);
}

SPPELANImpl::SPPELANImpl(int64_t c1, int64_t c2, int64_t c3, int64_t k) : k_(k) {
  cv1 = register_module("cv1", Conv(c1, c2, 1, 1));
  cv5 = register_module("cv5", Conv(4 * c2, c3, 1, 1));
}

torch::Tensor SPPELANImpl::forward(const torch::Tensor& x) {
  std::vector<torch::Tensor> features{cv1->forward(x)};
  for (int i = 0; i < 3; ++i)
    features.push_back(sdk::max_pool_same(features.back(), k_));  // max_pool2d(x, k, 1, k // 2)
  return cv5->forward(torch::cat(features, 1));
}

DownSample::DownSample(torch::nn::Module& parent, const std::string& name, bool adown,
                       int64_t in_channels, int64_t out_channels) {
  if (adown)
    adown_ = parent.register_module(name, ADown(in_channels, out_channels));
  else
    aconv_ = parent.register_module(name, AConv(in_channels, out_channels));
}

torch::Tensor DownSample::operator()(const torch::Tensor& x) {
  return adown_ ? adown_->forward(x) : aconv_->forward(x);
}

}  // namespace libreyolo::families::yolo9

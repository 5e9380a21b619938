#include "conv_norm.hpp"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace libreyolo::dfine {

ConvNormLayer::ConvNormLayer(const ConvNormOptions& o) : silu_(o.silu) {
  if (o.in_channels <= 0 || o.out_channels <= 0 || o.kernel_size <= 0 || o.stride <= 0 || o.groups <= 0 ||
      o.in_channels % o.groups != 0 || o.out_channels % o.groups != 0)
    throw std::invalid_argument("D-FINE ConvNormLayer: sizes must be positive and the channels divisible by groups, got "
                                "in=" + std::to_string(o.in_channels) + " out=" + std::to_string(o.out_channels) +
                                " kernel=" + std::to_string(o.kernel_size) + " stride=" + std::to_string(o.stride) +
                                " groups=" + std::to_string(o.groups));
  const int64_t padding = o.padding.value_or((o.kernel_size - 1) / 2);
  conv_ = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(o.in_channels, o.out_channels, o.kernel_size)
                                                        .stride(o.stride)
                                                        .padding(padding)
                                                        .groups(o.groups)
                                                        .bias(false)));
  norm_ = register_module("norm", sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(o.out_channels)));
}

torch::Tensor ConvNormLayer::forward(const torch::Tensor& x) {
  const auto y = norm_->forward(conv_->forward(x));
  return silu_ ? torch::silu(y) : y;
}

std::shared_ptr<ConvNormLayer> conv_norm(int64_t in, int64_t out, int64_t kernel, int64_t stride, bool silu) {
  ConvNormOptions options{in, out, kernel, stride};
  options.silu = silu;
  return std::make_shared<ConvNormLayer>(options);
}

}  // namespace libreyolo::dfine

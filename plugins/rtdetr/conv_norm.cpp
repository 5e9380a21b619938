#include "conv_norm.hpp"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace libreyolo::rtdetr {

torch::Tensor apply_activation(Activation act, const torch::Tensor& x) {
  switch (act) {
    case Activation::relu:
      return torch::relu(x);
    case Activation::silu:
      return torch::silu(x);
    case Activation::none:
      break;
  }
  return x;
}

ConvNormLayer::ConvNormLayer(const ConvNormOptions& options) : act_(options.act) {
  if (options.in_channels <= 0 || options.out_channels <= 0 || options.kernel_size <= 0 || options.stride <= 0)
    throw std::invalid_argument("ConvNormLayer: channels, kernel_size and stride must be positive, got in=" +
                                std::to_string(options.in_channels) + " out=" + std::to_string(options.out_channels) +
                                " kernel=" + std::to_string(options.kernel_size) +
                                " stride=" + std::to_string(options.stride));
  const int64_t padding = options.padding.value_or((options.kernel_size - 1) / 2);
  conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(options.in_channels, options.out_channels,
                                                                            options.kernel_size)
                                                       .stride(options.stride)
                                                       .padding(padding)
                                                       .bias(options.bias)));
  if (options.frozen_norm) {
    frozen_norm = register_module("norm", sdk::FrozenBatchNorm2d(options.out_channels));
  } else {
    norm = register_module("norm", sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(options.out_channels)));
  }
}

torch::Tensor ConvNormLayer::forward(const torch::Tensor& x) {
  const auto y = conv->forward(x);
  return apply_activation(act_, norm ? norm->forward(y) : frozen_norm->forward(y));
}

}  // namespace libreyolo::rtdetr

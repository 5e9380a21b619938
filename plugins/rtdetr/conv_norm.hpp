#pragma once
// RT-DETR's ConvNormLayer (LibreYOLO's libreyolo/models/rtdetr/backbone.py): Conv2d -> norm ->
// optional activation, the unit of PResNet and of the hybrid encoder's CCFF. Keys conv.weight
// (conv.bias when bias), norm.{weight, bias, running_mean, running_var[, num_batches_tracked]}.
// The norm is the SDK's BatchNorm2d (so sync_bn reaches it) or, with frozen_norm, its
// FrozenBatchNorm2d: what LibreYOLO's _freeze_norm swaps in.

#include <libreyolo/sdk/batch_norm.hpp>
#include <libreyolo/sdk/frozen_batch_norm.hpp>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include <cstdint>
#include <optional>

namespace libreyolo::rtdetr {

enum class Activation { none, relu, silu };

torch::Tensor apply_activation(Activation act, const torch::Tensor& x);

struct ConvNormOptions {
  ConvNormOptions(int64_t in, int64_t out, int64_t kernel, int64_t stride_ = 1)
      : in_channels(in), out_channels(out), kernel_size(kernel), stride(stride_) {}

  int64_t in_channels;
  int64_t out_channels;
  int64_t kernel_size;
  int64_t stride;
  std::optional<int64_t> padding;  // (kernel_size - 1) / 2 when absent, as in LibreYOLO
  bool bias = false;
  Activation act = Activation::none;
  bool frozen_norm = false;
};

class ConvNormLayer : public torch::nn::Module {
 public:
  // Throws std::invalid_argument for non-positive channels, kernel or stride.
  explicit ConvNormLayer(const ConvNormOptions& options);
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Conv2d conv{nullptr};
  sdk::BatchNorm2d norm{nullptr};               // one of these two is set
  sdk::FrozenBatchNorm2d frozen_norm{nullptr};  // (both are registered as "norm")

 private:
  Activation act_;
};

}  // namespace libreyolo::rtdetr

#pragma once
// RTMDet's building blocks, one class per block of LibreYOLO's libreyolo/models/rtmdet/nn.py
// (a port of mmdetection's CSPNeXt modules). Submodules are registered under the Python
// attribute names (conv, bn, depthwise_conv, main_conv, blocks, attention, ...) so that
// state_dict keys match LibreYOLO's checkpoints one for one. Modules without parameters or
// persistent buffers in Python (SiLU, Hardsigmoid, pooling, Upsample) are applied as functions
// here, which changes no key.

#include <libreyolo/sdk/batch_norm.hpp>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace libreyolo::families::rtmdet {

// mmdet's RTMDet configs build SyncBN without eps/momentum, so the checkpoints were trained with
// PyTorch's defaults (not the 1e-3 / 0.03 of CSPNeXt's docstring).
constexpr double kBatchNormEps = 1e-5;
constexpr double kBatchNormMomentum = 0.1;

// Conv2d (no bias) -> BatchNorm2d -> SiLU (mmcv's ConvModule). Keys: conv.weight,
// bn.{weight, bias, running_mean, running_var, num_batches_tracked}.
class ConvBNAct : public torch::nn::Module {
 public:
  ConvBNAct(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1, int64_t padding = 0,
            int64_t groups = 1);
  torch::Tensor forward(const torch::Tensor& x);

  // Makes this block use `other`'s convolution (the same module, so the same weight tensor)
  // while keeping its own BatchNorm: the head's cross-level sharing. The key stays "conv".
  void share_conv_of(const ConvBNAct& other);

  torch::nn::Conv2d conv{nullptr};
  sdk::BatchNorm2d bn{nullptr};  // the SDK's, so sync_bn reaches it
};

// Depthwise k x k ConvBNAct (groups = in) then a pointwise 1x1 ConvBNAct:
// keys depthwise_conv.*, pointwise_conv.*.
class DepthwiseSeparableConv : public torch::nn::Module {
 public:
  DepthwiseSeparableConv(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t padding);
  torch::Tensor forward(const torch::Tensor& x);

  std::shared_ptr<ConvBNAct> depthwise_conv;
  std::shared_ptr<ConvBNAct> pointwise_conv;
};

// Squeeze-and-excite: x * hardsigmoid(fc(global average of x)), fc a 1x1 conv with bias.
class ChannelAttention : public torch::nn::Module {
 public:
  explicit ChannelAttention(int64_t channels);
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Conv2d fc{nullptr};
};

// conv1 (3x3 ConvBNAct to out * expansion) -> conv2 (depthwise-separable 5x5), plus the input
// when add_identity and in == out.
class CSPNeXtBlock : public torch::nn::Module {
 public:
  CSPNeXtBlock(int64_t in_channels, int64_t out_channels, double expansion, bool add_identity);
  torch::Tensor forward(const torch::Tensor& x);

  std::shared_ptr<ConvBNAct> conv1;
  std::shared_ptr<DepthwiseSeparableConv> conv2;

 private:
  bool add_identity_;
};

// final_conv(attention(cat(blocks(main_conv(x)), short_conv(x)))), mid = out / 2 channels per
// branch; attention only where channel_attention (the backbone, not the neck). blocks is
// Python's nn.Sequential ("blocks.0", ...; a ModuleList here, which names children the same way).
class CSPLayer : public torch::nn::Module {
 public:
  CSPLayer(int64_t in_channels, int64_t out_channels, int64_t num_blocks, bool add_identity, bool channel_attention);
  torch::Tensor forward(const torch::Tensor& x);

  std::shared_ptr<ConvBNAct> main_conv;
  std::shared_ptr<ConvBNAct> short_conv;
  std::shared_ptr<ConvBNAct> final_conv;
  torch::nn::ModuleList blocks{nullptr};
  std::shared_ptr<ChannelAttention> attention;  // null without channel attention

 private:
  std::vector<std::shared_ptr<CSPNeXtBlock>> blocks_;  // the modules of blocks, typed
};

// mmdet's SPP: conv1 (to in / 2), max-pools 5, 9, 13 in parallel (stride 1, same size), conv2 on
// the concatenation. (mmyolo's SPPF, one 5x5 pool applied three times, is not weight-compatible.)
class SPPBottleneck : public torch::nn::Module {
 public:
  SPPBottleneck(int64_t in_channels, int64_t out_channels);
  torch::Tensor forward(const torch::Tensor& x);

  std::shared_ptr<ConvBNAct> conv1;
  std::shared_ptr<ConvBNAct> conv2;
};

}  // namespace libreyolo::families::rtmdet

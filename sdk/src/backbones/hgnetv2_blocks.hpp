#pragma once
// HGNetv2's building blocks (private to the SDK: only HGNetv2Impl is public). Children are
// registered under LibreYOLO's attribute names, so state-dict keys and their order match its
// Python modules; ReLU, padding and pooling have no state and are applied as functions.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "libreyolo/sdk/backbones/hgnetv2.hpp"
#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/frozen_batch_norm.hpp"

namespace libreyolo::sdk::backbones::detail {

// What every block of one backbone shares.
struct BlockStyle {
  HGNetv2Layout layout;
  bool use_lab;
  bool frozen_norm;
};

// scale * x + bias with one learnable scalar each (D-FINE's use_lab). Keys: scale, bias.
class LearnableAffine : public torch::nn::Module {
 public:
  LearnableAffine();
  torch::Tensor forward(const torch::Tensor& x);

  torch::Tensor scale, bias;
};

struct ConvSpec {
  int64_t in_channels;
  int64_t out_channels;
  int64_t kernel_size;
  int64_t stride = 1;
  int64_t groups = 1;
  bool act = true;                // ReLU (then lab when use_lab) after the norm
  bool pad_right_bottom = false;  // the stem's 2x2 convs: one zero row/column after, no padding
};

// conv -> bn -> ReLU -> lab. Keys conv.weight (conv.1.weight for RT-DETR's right-bottom padded
// convs, whose Python conv is Sequential(ZeroPad2d, Conv2d)), bn.*, lab.* when present.
class ConvBNAct : public torch::nn::Module {
 public:
  ConvBNAct(const ConvSpec& spec, const BlockStyle& style);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  ConvSpec spec_;
  torch::nn::Conv2d conv_{nullptr};
  sdk::BatchNorm2d bn_{nullptr};
  sdk::FrozenBatchNorm2d frozen_bn_{nullptr};
  std::shared_ptr<LearnableAffine> lab_;
};

// 1x1 conv without activation, then a depthwise kxk conv with it. Keys conv1.*, conv2.*.
class LightConvBNAct : public torch::nn::Module {
 public:
  LightConvBNAct(int64_t in_channels, int64_t out_channels, int64_t kernel_size, const BlockStyle& style);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  std::shared_ptr<ConvBNAct> conv1_, conv2_;
};

// stem1 (3x3 s2) -> [maxpool(2, 1) | stem2a -> stem2b] concatenated -> stem3 (3x3 s2) -> stem4,
// both branches on the input padded by one zero row and column at the bottom and right.
class HGNetv2Stem : public torch::nn::Module {
 public:
  HGNetv2Stem(const std::array<int64_t, 3>& channels, const BlockStyle& style);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  std::shared_ptr<ConvBNAct> stem1_, stem2a_, stem2b_, stem3_, stem4_;
};

// layer_num convs in a chain; the input and every layer's output are concatenated and squeezed
// to out / 2 then excited to out channels by 1x1 convs; plus the input when residual.
class HGBlock : public torch::nn::Module {
 public:
  HGBlock(int64_t in_channels, const HGNetv2StageSpec& spec, bool residual, const BlockStyle& style);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  bool residual_;
  std::vector<torch::nn::AnyModule> layers_;
  std::shared_ptr<ConvBNAct> squeeze_, excitation_;
};

// Optional depthwise stride-2 downsample, then num_blocks HGBlocks (all but the first residual).
// Keys downsample.*, blocks.<i>.*.
class HGNetv2Stage : public torch::nn::Module {
 public:
  HGNetv2Stage(const HGNetv2StageSpec& spec, const BlockStyle& style);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  std::shared_ptr<ConvBNAct> downsample_;
  std::vector<std::shared_ptr<HGBlock>> blocks_;
};

}  // namespace libreyolo::sdk::backbones::detail

#pragma once
// PResNet's residual blocks and stages (variant "d"), registered under LibreYOLO's attribute
// names so that keys and their order match backbone.py's BasicBlock, BottleNeck and Blocks.

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "conv_norm.hpp"

namespace libreyolo::rtdetr {

// The "d" variant's stride-2 projection shortcut: AvgPool2d(2, 2, ceil_mode=True) then a 1x1
// ConvNormLayer. Python's Sequential(pool, conv): the pool has no state, keys are conv.*.
class PooledShortcut : public torch::nn::Module {
 public:
  PooledShortcut(int64_t in_channels, int64_t out_channels, bool frozen_norm);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  std::shared_ptr<ConvNormLayer> conv_;
};

struct ResidualBlockSpec {
  bool bottleneck;  // BottleNeck (1x1, 3x3, 1x1 to 4 * width) or BasicBlock (3x3, 3x3)
  int64_t in_channels;
  int64_t width;  // Python's ch_out; the block outputs width (basic) or 4 * width (bottleneck)
  int64_t stride;
  bool identity_shortcut;  // Python's shortcut=True: add the input unchanged
  bool frozen_norm;
};

// relu(branch(x) + short(x)). BasicBlock registers short before its branches, BottleNeck after:
// the state-dict order follows.
class ResidualBlock : public torch::nn::Module {
 public:
  explicit ResidualBlock(const ResidualBlockSpec& spec);
  torch::Tensor forward(const torch::Tensor& x);

  int64_t out_channels() const { return out_channels_; }

 private:
  void register_shortcut(const ResidualBlockSpec& spec);

  int64_t out_channels_;
  std::shared_ptr<ConvNormLayer> branch2a_, branch2b_, branch2c_;  // branch2c: bottleneck only
  std::shared_ptr<ConvNormLayer> short_conv_;                      // stride-1 projection
  std::shared_ptr<PooledShortcut> short_pooled_;                   // stride-2 projection
};

// Python's Blocks: `count` ResidualBlocks under "blocks"; the first one projects (and strides
// by 2 except in the first stage).
class ResStage : public torch::nn::Module {
 public:
  ResStage(bool bottleneck, int64_t in_channels, int64_t width, int64_t count, bool first_stage, bool frozen_norm);
  torch::Tensor forward(const torch::Tensor& x);

  int64_t out_channels() const { return blocks_.back()->out_channels(); }

 private:
  std::vector<std::shared_ptr<ResidualBlock>> blocks_;
};

}  // namespace libreyolo::rtdetr

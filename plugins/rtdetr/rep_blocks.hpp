#pragma once
// The hybrid encoder's CCFF fusion blocks (LibreYOLO's libreyolo/models/rtdetr/nn.py): RepVggBlock
// and CSPRepLayer, in their training form (two parallel branches; LibreYOLO's deploy-time fusion
// into one 3x3 conv is an export matter and not built here). Keys as LibreYOLO's.

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "conv_norm.hpp"

namespace libreyolo::rtdetr {

// act(conv1(x) + conv2(x)): a 3x3 and a 1x1 ConvNormLayer without activation of their own.
class RepVggBlock : public torch::nn::Module {
 public:
  RepVggBlock(int64_t in_channels, int64_t out_channels, Activation act);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  Activation act_;
  std::shared_ptr<ConvNormLayer> conv1_, conv2_;
};

// conv3(bottlenecks(conv1(x)) + conv2(x)) with hidden = int(out * expansion) channels in both
// branches; conv3 (1x1) exists only when hidden != out, as in LibreYOLO (an Identity there).
// Keys conv1.*, conv2.*, bottlenecks.<i>.{conv1, conv2}.*, conv3.*.
class CSPRepLayer : public torch::nn::Module {
 public:
  // Throws std::invalid_argument when expansion makes the hidden width zero.
  CSPRepLayer(int64_t in_channels, int64_t out_channels, int64_t num_blocks, double expansion, Activation act);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  std::shared_ptr<ConvNormLayer> conv1_, conv2_, conv3_;
  std::vector<std::shared_ptr<RepVggBlock>> bottlenecks_;
};

}  // namespace libreyolo::rtdetr

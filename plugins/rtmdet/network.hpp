#pragma once
// RTMDet's backbone (CSPNeXt) and neck (CSPNeXtPAFPN), as in LibreYOLO's nn.py. Keys:
// backbone.stem.{0,1,2}.*, backbone.stage{1..4}.*, neck.{reduce_layers, top_down_blocks,
// downsamples, bottom_up_blocks, out_convs}.*

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/types.h>

#include <array>
#include <memory>
#include <vector>

#include "blocks.hpp"
#include "config.hpp"

namespace libreyolo::families::rtmdet {

using FeatureMaps = std::array<torch::Tensor, 3>;  // strides 8, 16, 32

// stem: three 3x3 ConvBNActs (the first stride 2) -> stage1 .. stage4 (P3, P4, P5 from stage2..4).
// Each stage is Python's nn.Sequential: "0" a stride-2 3x3 ConvBNAct, then (stage4 only) "1" the
// SPP, then the CSPLayer with channel attention (identity shortcuts in stage1..3 only).
class CSPNeXt : public torch::nn::Module {
 public:
  explicit CSPNeXt(const SizeConfig& config);
  FeatureMaps forward(const torch::Tensor& x);

  torch::nn::ModuleList stem{nullptr};
  torch::nn::ModuleList stage1{nullptr}, stage2{nullptr}, stage3{nullptr}, stage4{nullptr};

 private:
  struct Stage {
    std::shared_ptr<ConvBNAct> down;
    std::shared_ptr<SPPBottleneck> spp;  // stage4 only
    std::shared_ptr<CSPLayer> csp;
    torch::Tensor operator()(const torch::Tensor& x) const;
  };
  torch::nn::ModuleList add_stage(const char* name, Stage& stage, int64_t in_channels, int64_t out_channels,
                                  int64_t blocks, bool spp, bool add_identity);
  std::vector<std::shared_ptr<ConvBNAct>> stem_;
  std::array<Stage, 4> stages_;  // stage1 .. stage4
};

// PAFPN over (P3, P4, P5) with widths neck_in. Top-down, level l = 1, 0 (reduce_layers /
// top_down_blocks index i = 1 - l): reduce the higher level to level l's width, upsample 2x,
// concatenate with level l, CSPLayer. Bottom-up, l = 0, 1: stride-2 conv of the output below,
// concatenate with the reduced map of level l + 1, CSPLayer to level l + 1's width. out_convs:
// a 3x3 ConvBNAct per level to neck_out. Neck CSPLayers have no attention and no shortcut.
class CSPNeXtPAFPN : public torch::nn::Module {
 public:
  explicit CSPNeXtPAFPN(const SizeConfig& config);
  FeatureMaps forward(const FeatureMaps& features);

  torch::nn::ModuleList reduce_layers{nullptr}, top_down_blocks{nullptr};
  torch::nn::ModuleList downsamples{nullptr}, bottom_up_blocks{nullptr};
  torch::nn::ModuleList out_convs{nullptr};

 private:
  struct Levels {
    std::array<std::shared_ptr<ConvBNAct>, 2> reduce, down;
    std::array<std::shared_ptr<CSPLayer>, 2> top_down, bottom_up;
    std::array<std::shared_ptr<ConvBNAct>, 3> out;
  } levels_;
};

}  // namespace libreyolo::families::rtmdet

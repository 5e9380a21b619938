#pragma once
// YOLOX's backbone (CSPDarknet) and neck (YOLOPAFPN, which owns the backbone as
// "backbone.backbone" in LibreYOLO's keys), as in LibreYOLO's nn.py.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/types.h>

#include <array>
#include <memory>

#include "blocks.hpp"
#include "config.hpp"

namespace libreyolo::families::yolox {

using FeatureMaps = std::array<torch::Tensor, 3>;  // strides 8, 16, 32

// stem (Focus) -> dark2 -> dark3 (P3) -> dark4 (P4) -> dark5 (P5). Each dark stage is Python's
// nn.Sequential: "0" a stride-2 3x3 conv, then (dark5 only) "1" the SPP, then the CSPLayer.
class CSPDarknet : public torch::nn::Module {
 public:
  explicit CSPDarknet(const SizeConfig& config);
  FeatureMaps forward(const torch::Tensor& x);

  std::shared_ptr<Focus> stem;
  torch::nn::ModuleList dark2{nullptr}, dark3{nullptr}, dark4{nullptr}, dark5{nullptr};

 private:
  struct Stage {
    std::shared_ptr<ConvLike> down;
    std::shared_ptr<SPPBottleneck> spp;  // dark5 only
    std::shared_ptr<CSPLayer> csp;
    torch::Tensor operator()(const torch::Tensor& x) const;
  };
  torch::nn::ModuleList add_stage(const char* name, Stage& stage, int64_t in_channels, int64_t out_channels,
                                  int64_t depth, bool spp, bool shortcut, bool depthwise);
  std::array<Stage, 4> stages_;  // dark2 .. dark5
};

// Top-down: lateral_conv0(P5) -> up + P4 -> C3_p4 -> reduce_conv1 -> up + P3 -> C3_p3 (out P3).
// Bottom-up: bu_conv2(out P3) + reduce_conv1's output -> C3_n3 (out P4);
//            bu_conv1(out P4) + lateral_conv0's output -> C3_n4 (out P5).
class YOLOPAFPN : public torch::nn::Module {
 public:
  // What the top-down path hands the bottom-up one: lateral_conv0's and reduce_conv1's outputs
  // and the finished P3 output.
  struct TopDown {
    torch::Tensor fpn_out0, fpn_out1, pan_out2;
  };

  explicit YOLOPAFPN(const SizeConfig& config);
  // The backbone and the PAFPN in two halves (the detector calls both; the backbone is in the
  // first), so that P3's head can start before the bottom-up path.
  TopDown top_down(const torch::Tensor& images);
  std::array<torch::Tensor, 2> bottom_up(const TopDown& top);  // out P4, out P5

  std::shared_ptr<CSPDarknet> backbone;
  std::shared_ptr<BaseConv> lateral_conv0;
  std::shared_ptr<CSPLayer> C3_p4;
  std::shared_ptr<BaseConv> reduce_conv1;
  std::shared_ptr<CSPLayer> C3_p3;
  std::shared_ptr<ConvLike> bu_conv2;
  std::shared_ptr<CSPLayer> C3_n3;
  std::shared_ptr<ConvLike> bu_conv1;
  std::shared_ptr<CSPLayer> C3_n4;
};

}  // namespace libreyolo::families::yolox

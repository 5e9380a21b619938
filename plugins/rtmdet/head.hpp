#pragma once
// RTMDet's RTMDetSepBNHead, as in LibreYOLO's nn.py (mmdet's head of the published checkpoints).
//
// Per level: a class tower and a regression tower of two 3x3 ConvBNActs each, then rtm_cls (1x1,
// nc logits) and rtm_reg (1x1, 4 box distances). The towers' convolutions are SHARED across
// levels while every level keeps its own BatchNorm: cls_convs[l][i].conv is cls_convs[0][i].conv
// for l = 1, 2 (the same module, so the same weight tensor; reg_convs alike). PyTorch's
// state_dict lists a shared tensor under every path that reaches it, and LibTorch's does the
// same here, so the keys are head.cls_convs.<l>.<i>.conv.weight for all three levels (loading
// any of them writes the one tensor). Counting parameters must visit each tensor once.
// Keys, in Python's registration order: head.cls_convs.<l>.<i>.*, head.reg_convs.<l>.<i>.*,
// head.rtm_cls.<l>.{weight, bias}, head.rtm_reg.<l>.{weight, bias}.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "blocks.hpp"
#include "config.hpp"

namespace libreyolo::families::rtmdet {

// rtm_cls's bias at initialisation: -log((1 - p) / p) with p = 0.01 (mmdet's bias_init_with_prob).
constexpr double kPriorProbability = 0.01;
// Standard deviation of every head convolution at initialisation (mmdet's normal_init).
constexpr double kHeadInitStd = 0.01;

class RTMDetSepBNHead : public torch::nn::Module {
 public:
  // channels: the neck's output width, also the towers' width (LibreYOLO builds the head with
  // feat_channels = in_channels = neck_out).
  RTMDetSepBNHead(int64_t num_classes, int64_t channels, bool exp_on_reg,
                  const std::array<int64_t, 3>& strides = kStrides);

  // {cls_P3, cls_P4, cls_P5, reg_P3, reg_P4, reg_P5}: cls [B, nc, H, W] raw logits, reg
  // [B, 4, H, W] float32 left, top, right, bottom distances in input pixels (see
  // distances_from_raw).
  std::vector<torch::Tensor> forward(const std::array<torch::Tensor, 3>& features);

  // mmdet's RTMDetSepBNHead.init_weights (adopted by LibreYOLO's PR #568): every Conv2d
  // Normal(0, 0.01) with bias 0, BatchNorm weight 1 and bias 0, rtm_cls bias
  // -log((1 - 0.01) / 0.01). Its absence (with a loss in fp16) caused LibreYOLO's NaN losses
  // and 0.014 mAP from scratch (issues #542, #566). Called by the constructor.
  void init_weights();

  int64_t num_classes() const { return num_classes_; }
  bool exp_on_reg() const { return exp_on_reg_; }

  torch::nn::ModuleList cls_convs{nullptr}, reg_convs{nullptr};
  torch::nn::ModuleList rtm_cls{nullptr}, rtm_reg{nullptr};

 private:
  struct Level {
    std::array<std::shared_ptr<ConvBNAct>, 2> cls_tower, reg_tower;
    torch::nn::Conv2d cls_pred{nullptr}, reg_pred{nullptr};
  };
  void add_towers(int64_t channels);
  int64_t num_classes_;
  bool exp_on_reg_;
  std::array<int64_t, 3> strides_;
  std::vector<Level> levels_;
};

// rtm_reg's raw output to distances in input pixels: exp(raw) * stride when exp_on_reg (m, l,
// x), raw * stride otherwise (t, s). Computed in float32 whatever the input's dtype: under fp16
// autocast exp overflows above 11.1 and stride-scaled distances lose precision.
torch::Tensor distances_from_raw(const torch::Tensor& raw, int64_t stride, bool exp_on_reg);

}  // namespace libreyolo::families::rtmdet

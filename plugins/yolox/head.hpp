#pragma once
// YOLOX's decoupled head (LibreYOLO's YOLOXHead) and the grid decode that turns its raw outputs
// into boxes (LibreYOLO's postprocess/yolox.py decode_outputs).
//
// Per level: stems (1x1 BaseConv to int(256 * width)), then a class tower (two 3x3 convs ->
// cls_preds, nc logits) and a regression tower (two 3x3 convs -> reg_preds, 4 raw box values,
// and obj_preds, 1 objectness logit). State-dict keys, in Python's registration order:
// head.cls_convs.<l>.{0,1}.*, head.reg_convs.<l>.{0,1}.*, head.cls_preds.<l>.{weight,bias},
// head.reg_preds.<l>.*, head.obj_preds.<l>.*, head.stems.<l>.*.
//
// Raw output layout (both training and inference here; LibreYOLO applies the sigmoids inside the
// head at inference, we apply them in decode): [B, 5 + nc, H, W] with channels
//   0, 1  x, y offsets in cells from the cell's top-left corner (grid without 0.5 offset)
//   2, 3  log(w / stride), log(h / stride)
//   4     objectness logit
//   5 ..  class logits

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include <array>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "blocks.hpp"
#include "config.hpp"

namespace libreyolo::families::yolox {

// Bias of cls_preds and obj_preds at initialisation: -log((1 - p) / p) with p = 0.01, as
// LibreYOLO's YOLOX trainer sets before training (head.initialize_biases(0.01)).
constexpr double kPriorProbability = 0.01;

class YOLOXHead : public torch::nn::Module {
 public:
  YOLOXHead(int64_t num_classes, const std::array<int64_t, 3>& in_channels, int64_t hidden, bool depthwise);

  // Level `level`'s stem (a 1x1 BaseConv), then its towers on the stem's output: {regression
  // features, class features}, side by side where allowed. The detector runs every level's
  // (yolox_detector.cpp: P3's stem beside the PAFPN's bottom-up path), then predict().
  torch::Tensor stem(std::size_t level, const torch::Tensor& feature);
  std::array<torch::Tensor, 2> towers(std::size_t level, const torch::Tensor& stem_output);

  // Per level [B, 5 + nc, H_l, W_l], raw (see the layout above), from each level's towers: the
  // nine prediction convolutions through sdk::prediction_levels (one launch into the criterion's
  // rows where fused_kernels allows prediction_rows).
  std::vector<torch::Tensor> predict(const std::vector<std::array<torch::Tensor, 2>>& towers);

  void initialize_biases(double prior_probability);

  int64_t num_classes() const { return num_classes_; }

  torch::nn::ModuleList cls_convs{nullptr}, reg_convs{nullptr};
  torch::nn::ModuleList cls_preds{nullptr}, reg_preds{nullptr}, obj_preds{nullptr};
  torch::nn::ModuleList stems{nullptr};

 private:
  struct Level {
    std::shared_ptr<BaseConv> stem;
    std::array<std::shared_ptr<ConvLike>, 2> cls_tower, reg_tower;
    torch::nn::Conv2d cls_pred{nullptr}, reg_pred{nullptr}, obj_pred{nullptr};
  };
  int64_t num_classes_;
  std::vector<Level> levels_;
};

// Raw outputs in, float32 out, no host synchronisation:
//   boxes  [B, N, 4] x1, y1, x2, y2 in input pixels, centre (raw_xy + grid) * stride and size
//          exp(raw_wh) * stride;
//   scores [B, N, nc] sigmoid(obj) * sigmoid(cls), LibreYOLO's confidence per class.
// N = sum over levels of H_l * W_l, levels in order, cells row-major.
std::pair<torch::Tensor, torch::Tensor> decode_outputs(const std::vector<torch::Tensor>& outputs, int64_t num_classes,
                                                       const std::array<int64_t, 3>& strides = kStrides);

// The grid of every cell of every level: (col, row) [N, 2] and stride [N, 1], float32 on the
// outputs' device, in decode_outputs' order (shapes only).
std::pair<torch::Tensor, torch::Tensor> make_grid(const std::vector<torch::Tensor>& outputs,
                                                  const std::array<int64_t, 3>& strides = kStrides);

// [B, 5 + nc, H, W] per level -> [B, N, 5 + nc] float32.
torch::Tensor flatten_outputs(const std::vector<torch::Tensor>& outputs);

}  // namespace libreyolo::families::yolox

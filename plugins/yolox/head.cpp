#include "head.hpp"

#include <torch/torch.h>

#include <libreyolo/sdk/losses/anchors.hpp>
#include <libreyolo/sdk/prediction_rows.hpp>
#include <libreyolo/sdk/side_by_side.hpp>

#include <cmath>
#include <stdexcept>

namespace libreyolo::families::yolox {

namespace {

torch::nn::Conv2d prediction_conv(int64_t in_channels, int64_t out_channels) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, out_channels, 1).bias(true));
}

}  // namespace

YOLOXHead::YOLOXHead(int64_t num_classes, const std::array<int64_t, 3>& in_channels, int64_t hidden, bool depthwise)
    : num_classes_(num_classes) {
  if (num_classes < 1) throw std::invalid_argument("YOLOX head: num_classes must be at least 1");
  // Python registers the six ModuleLists in this order, then fills them level by level.
  cls_convs = register_module("cls_convs", torch::nn::ModuleList());
  reg_convs = register_module("reg_convs", torch::nn::ModuleList());
  cls_preds = register_module("cls_preds", torch::nn::ModuleList());
  reg_preds = register_module("reg_preds", torch::nn::ModuleList());
  obj_preds = register_module("obj_preds", torch::nn::ModuleList());
  stems = register_module("stems", torch::nn::ModuleList());
  for (const int64_t c : in_channels) {
    Level level;
    level.stem = std::make_shared<BaseConv>(c, hidden, 1, 1);
    stems->push_back(level.stem);
    torch::nn::ModuleList cls_tower, reg_tower;
    for (auto& conv : level.cls_tower) {
      conv = make_conv(depthwise, hidden, hidden, 3, 1);
      cls_tower->push_back(conv);
    }
    for (auto& conv : level.reg_tower) {
      conv = make_conv(depthwise, hidden, hidden, 3, 1);
      reg_tower->push_back(conv);
    }
    cls_convs->push_back(cls_tower);
    reg_convs->push_back(reg_tower);
    level.cls_pred = prediction_conv(hidden, num_classes);
    level.reg_pred = prediction_conv(hidden, 4);
    level.obj_pred = prediction_conv(hidden, 1);
    cls_preds->push_back(level.cls_pred);
    reg_preds->push_back(level.reg_pred);
    obj_preds->push_back(level.obj_pred);
    levels_.push_back(std::move(level));
  }
  initialize_biases(kPriorProbability);
}

void YOLOXHead::initialize_biases(double prior_probability) {
  torch::NoGradGuard no_grad;
  const double bias = -std::log((1.0 - prior_probability) / prior_probability);
  for (auto& level : levels_) {
    level.cls_pred->bias.fill_(bias);
    level.obj_pred->bias.fill_(bias);
  }
}

torch::Tensor YOLOXHead::stem(std::size_t level, const torch::Tensor& feature) {
  return levels_.at(level).stem->forward(feature);
}

std::array<torch::Tensor, 2> YOLOXHead::towers(std::size_t index, const torch::Tensor& x) {
  auto& level = levels_.at(index);
  // The class tower (the wider prediction's) first: it stays on the caller's stream.
  const auto made = sdk::side_by_side(
      {x}, {[&] { return level.cls_tower[1]->forward(level.cls_tower[0]->forward(x)); },
            [&] { return level.reg_tower[1]->forward(level.reg_tower[0]->forward(x)); }},
      sdk::BranchScope::level);
  return {made[1], made[0]};
}

std::vector<torch::Tensor> YOLOXHead::predict(const std::vector<std::array<torch::Tensor, 2>>& towers) {
  if (towers.size() != levels_.size())
    throw std::invalid_argument("YOLOX head: predict takes one pair of tower features per level");
  std::vector<std::vector<sdk::PredictionConv>> levels;
  for (std::size_t l = 0; l < towers.size(); ++l) {
    const auto& [regression, classes] = towers[l];
    levels.push_back({{levels_[l].reg_pred, regression}, {levels_[l].obj_pred, regression}, {levels_[l].cls_pred, classes}});
  }
  return sdk::prediction_levels(levels);
}

std::pair<torch::Tensor, torch::Tensor> make_grid(const std::vector<torch::Tensor>& outputs,
                                                  const std::array<int64_t, 3>& strides) {
  // The SDK's anchor points with offset 0 are (col, row) * stride: YOLOX's grid has no 0.5.
  const auto anchors = sdk::losses::make_anchors(outputs, {strides.begin(), strides.end()}, 0.0);
  return {anchors.points / anchors.strides, anchors.strides};
}

torch::Tensor flatten_outputs(const std::vector<torch::Tensor>& outputs) {
  return sdk::losses::anchor_rows(outputs);  // [B, N, C] float32
}

std::pair<torch::Tensor, torch::Tensor> decode_outputs(const std::vector<torch::Tensor>& outputs, int64_t num_classes,
                                                       const std::array<int64_t, 3>& strides) {
  if (outputs.size() != strides.size())
    throw std::invalid_argument("YOLOX decode: expected one output per stride (3 levels)");
  for (const auto& level : outputs)
    if (level.dim() != 4 || level.size(1) != 5 + num_classes)
      throw std::invalid_argument("YOLOX decode: each level must be [B, 5 + nc, H, W]");
  const auto p = flatten_outputs(outputs);
  const auto [grid, stride] = make_grid(outputs, strides);
  const auto centre = (p.narrow(2, 0, 2) + grid) * stride;
  const auto size = torch::exp(p.narrow(2, 2, 2)) * stride;
  const auto boxes = torch::cat({centre - size / 2, centre + size / 2}, 2);
  const auto scores = torch::sigmoid(p.narrow(2, 4, 1)) * torch::sigmoid(p.narrow(2, 5, num_classes));
  return {boxes, scores};
}

}  // namespace libreyolo::families::yolox

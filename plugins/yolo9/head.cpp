#include "head.hpp"

#include "libreyolo/sdk/losses/anchors.hpp"
#include "libreyolo/sdk/losses/dfl.hpp"
#include "libreyolo/sdk/prediction_rows.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace libreyolo::families::yolo9 {

HeadTowerImpl::HeadTowerImpl(int64_t in_channels, int64_t hidden, int64_t out_channels, int64_t groups) {
  conv0 = register_module("0", Conv(in_channels, hidden, 3));
  conv1 = register_module("1", Conv(hidden, hidden, 3, 1, -1, groups));
  pred = register_module(
      "2", torch::nn::Conv2d(torch::nn::Conv2dOptions(hidden, out_channels, 1).groups(groups).bias(true)));
}

torch::Tensor HeadTowerImpl::forward(const torch::Tensor& x) { return pred->forward(features(x)); }

torch::Tensor HeadTowerImpl::features(const torch::Tensor& x) { return conv1->forward(conv0->forward(x)); }

DDetectImpl::DDetectImpl(int64_t num_classes, const std::array<int64_t, 3>& in_channels, int64_t reg_max)
    : num_classes_(num_classes), reg_max_(reg_max) {
  if (num_classes < 1) throw std::invalid_argument("YOLOv9 head: num_classes must be at least 1");
  const int64_t groups = 4;  // use_group=True: grouped box towers
  const int64_t box_out = 4 * reg_max;
  const int64_t c0 = in_channels[0];
  const int64_t grouped = ((c0 / 4 + groups - 1) / groups) * groups;
  box_hidden_ = std::max({grouped, box_out, reg_max});
  class_hidden_ = std::max(c0, std::min<int64_t>(num_classes, 100));

  cv2 = register_module("cv2", torch::nn::ModuleList());
  cv3 = register_module("cv3", torch::nn::ModuleList());
  for (const int64_t c : in_channels) {
    box_towers_.emplace_back(c, box_hidden_, box_out, groups);
    cv2->push_back(box_towers_.back());
  }
  for (const int64_t c : in_channels) {
    class_towers_.emplace_back(c, class_hidden_, num_classes, 1);
    cv3->push_back(class_towers_.back());
  }
  init_bias();
}

void DDetectImpl::init_bias() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < box_towers_.size(); ++i) {
    box_towers_[i]->pred->bias.fill_(1.0);
    const double cells = 640.0 / static_cast<double>(kStrides[i]);
    class_towers_[i]->pred->bias.fill_(std::log(5.0 / static_cast<double>(num_classes_) / (cells * cells)));
  }
}

torch::Tensor DDetectImpl::box_features(std::size_t level, const torch::Tensor& x) {
  return box_towers_.at(level)->features(x);
}

torch::Tensor DDetectImpl::class_features(std::size_t level, const torch::Tensor& x) {
  return class_towers_.at(level)->features(x);
}

std::vector<torch::Tensor> DDetectImpl::predict(const std::vector<std::array<torch::Tensor, 2>>& features) {
  if (features.size() != box_towers_.size())
    throw std::invalid_argument("YOLOv9 head: predict takes one pair of tower features per level");
  std::vector<std::vector<sdk::PredictionConv>> levels;
  for (std::size_t l = 0; l < features.size(); ++l)
    levels.push_back({{box_towers_[l]->pred, features[l][0]}, {class_towers_[l]->pred, features[l][1]}});
  return sdk::prediction_levels(levels);
}

std::pair<torch::Tensor, torch::Tensor> decode_outputs(const std::vector<torch::Tensor>& outputs,
                                                       int64_t num_classes, int64_t reg_max,
                                                       const std::array<int64_t, 3>& strides) {
  if (outputs.size() != strides.size())
    throw std::invalid_argument("YOLOv9 decode: expected one output per stride (3 levels)");
  const int64_t batch = outputs[0].size(0), channels = 4 * reg_max + num_classes;
  for (const auto& level : outputs)
    if (level.size(1) != channels)
      throw std::invalid_argument("YOLOv9 decode: a level has the wrong channel count for its classes");
  const auto all = sdk::losses::anchor_rows(outputs);  // [B, N, no] float32
  // The SDK's anchor, DFL and distance helpers (shared with the loss): anchor points in input
  // pixels, expected bins per side scaled by each point's stride.
  const auto anchors = sdk::losses::make_anchors(outputs, {strides.begin(), strides.end()});
  const auto logits = all.narrow(2, 0, 4 * reg_max).view({batch, -1, 4, reg_max});
  const auto distance = sdk::losses::dfl_decode(logits) * anchors.strides;  // [B, N, 4] pixels
  const auto boxes = sdk::losses::distance_to_bbox(distance, anchors.points);
  return {boxes, all.narrow(2, 4 * reg_max, num_classes).sigmoid()};
}

}  // namespace libreyolo::families::yolo9

#include "head.hpp"

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

torch::Tensor HeadTowerImpl::forward(const torch::Tensor& x) {
  return pred->forward(conv1->forward(conv0->forward(x)));
}

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

std::vector<torch::Tensor> DDetectImpl::forward(const std::vector<torch::Tensor>& features) {
  std::vector<torch::Tensor> out;
  out.reserve(features.size());
  for (size_t i = 0; i < features.size(); ++i)
    out.push_back(torch::cat({box_towers_[i]->forward(features[i]), class_towers_[i]->forward(features[i])}, 1));
  return out;
}

std::pair<torch::Tensor, torch::Tensor> make_anchors(const std::vector<torch::Tensor>& feats,
                                                     const std::array<int64_t, 3>& strides,
                                                     double grid_cell_offset) {
  std::vector<torch::Tensor> points, level_strides;
  for (size_t i = 0; i < feats.size(); ++i) {
    const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(feats[i].device());
    const auto ys = torch::arange(feats[i].size(2), options) + grid_cell_offset;
    const auto xs = torch::arange(feats[i].size(3), options) + grid_cell_offset;
    const auto grid = torch::meshgrid({ys, xs}, "ij");
    auto centers = torch::stack({grid[1].reshape(-1), grid[0].reshape(-1)}, 1);
    level_strides.push_back(torch::full({centers.size(0), 1}, static_cast<double>(strides[i]), options));
    points.push_back(std::move(centers));
  }
  return {torch::cat(points, 0), torch::cat(level_strides, 0)};
}

torch::Tensor dfl_integral(const torch::Tensor& box_logits, int64_t reg_max) {
  const int64_t batch = box_logits.size(0), anchors = box_logits.size(2);
  const auto weights = box_logits.reshape({batch, 4, reg_max, anchors}).softmax(2);
  const auto project = torch::arange(reg_max, weights.options()).view({1, 1, reg_max, 1});
  return (weights * project).sum(2);
}

torch::Tensor dist2bbox(const torch::Tensor& distance, const torch::Tensor& anchor_points, bool xywh,
                        int64_t dim) {
  const auto parts = distance.chunk(2, dim);
  const auto x1y1 = anchor_points - parts[0];
  const auto x2y2 = anchor_points + parts[1];
  if (xywh) return torch::cat({(x1y1 + x2y2) / 2, x2y2 - x1y1}, dim);
  return torch::cat({x1y1, x2y2}, dim);
}

std::pair<torch::Tensor, torch::Tensor> decode_outputs(const std::vector<torch::Tensor>& outputs,
                                                       int64_t num_classes, int64_t reg_max,
                                                       const std::array<int64_t, 3>& strides) {
  if (outputs.size() != strides.size())
    throw std::invalid_argument("YOLOv9 decode: expected one output per stride (3 levels)");
  const int64_t batch = outputs[0].size(0), channels = 4 * reg_max + num_classes;
  std::vector<torch::Tensor> flat;
  for (const auto& level : outputs) {
    if (level.size(1) != channels)
      throw std::invalid_argument("YOLOv9 decode: a level has the wrong channel count for its classes");
    flat.push_back(level.to(torch::kFloat32).reshape({batch, channels, -1}));
  }
  const auto all = torch::cat(flat, 2);  // [B, no, N]
  const auto [points, point_strides] = make_anchors(outputs, strides, 0.5);
  const auto distance = dfl_integral(all.narrow(1, 0, 4 * reg_max), reg_max);       // [B, 4, N]
  const auto boxes = dist2bbox(distance, points.t().unsqueeze(0), false, 1) * point_strides.t();
  const auto scores = all.narrow(1, 4 * reg_max, num_classes).sigmoid();
  return {boxes.transpose(1, 2), scores.transpose(1, 2)};
}

}  // namespace libreyolo::families::yolo9

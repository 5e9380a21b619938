#include "head.hpp"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

namespace libreyolo::families::rtmdet {

namespace {

torch::nn::Conv2d prediction_conv(int64_t in_channels, int64_t out_channels) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, out_channels, 1).bias(true));
}

}  // namespace

RTMDetSepBNHead::RTMDetSepBNHead(int64_t num_classes, int64_t channels, bool exp_on_reg,
                                 const std::array<int64_t, 3>& strides)
    : num_classes_(num_classes), exp_on_reg_(exp_on_reg), strides_(strides) {
  if (num_classes < 1) throw std::invalid_argument("RTMDet head: num_classes must be at least 1");
  // Python registers the four ModuleLists in this order, then fills them level by level.
  cls_convs = register_module("cls_convs", torch::nn::ModuleList());
  reg_convs = register_module("reg_convs", torch::nn::ModuleList());
  rtm_cls = register_module("rtm_cls", torch::nn::ModuleList());
  rtm_reg = register_module("rtm_reg", torch::nn::ModuleList());
  add_towers(channels);
  for (auto& level : levels_) {
    level.cls_pred = prediction_conv(channels, num_classes);
    level.reg_pred = prediction_conv(channels, 4);
    rtm_cls->push_back(level.cls_pred);
    rtm_reg->push_back(level.reg_pred);
  }
  init_weights();
}

void RTMDetSepBNHead::add_towers(int64_t channels) {
  levels_.resize(strides_.size());
  for (size_t l = 0; l < levels_.size(); ++l) {
    auto& level = levels_[l];
    torch::nn::ModuleList cls_tower, reg_tower;
    for (size_t i = 0; i < level.cls_tower.size(); ++i) {
      level.cls_tower[i] = std::make_shared<ConvBNAct>(channels, channels, 3, 1, 1);
      level.reg_tower[i] = std::make_shared<ConvBNAct>(channels, channels, 3, 1, 1);
      // Levels 1 and 2 keep their BatchNorms but use level 0's convolutions (share_conv).
      if (l > 0) {
        level.cls_tower[i]->share_conv_of(*levels_[0].cls_tower[i]);
        level.reg_tower[i]->share_conv_of(*levels_[0].reg_tower[i]);
      }
      cls_tower->push_back(level.cls_tower[i]);
      reg_tower->push_back(level.reg_tower[i]);
    }
    cls_convs->push_back(cls_tower);
    reg_convs->push_back(reg_tower);
  }
}

void RTMDetSepBNHead::init_weights() {
  torch::NoGradGuard no_grad;
  // A shared convolution is reached three times; drawing it again changes nothing that matters.
  for (const auto& module : modules(/*include_self=*/false)) {
    if (auto* conv = module->as<torch::nn::Conv2dImpl>()) {
      torch::nn::init::normal_(conv->weight, 0.0, kHeadInitStd);
      if (conv->bias.defined()) torch::nn::init::zeros_(conv->bias);
    } else if (auto* bn = module->as<torch::nn::BatchNorm2dImpl>()) {
      torch::nn::init::ones_(bn->weight);
      torch::nn::init::zeros_(bn->bias);
    }
  }
  const double cls_bias = -std::log((1.0 - kPriorProbability) / kPriorProbability);
  for (auto& level : levels_) level.cls_pred->bias.fill_(cls_bias);
}

std::vector<torch::Tensor> RTMDetSepBNHead::forward(const std::array<torch::Tensor, 3>& features) {
  std::vector<torch::Tensor> cls(levels_.size()), reg(levels_.size());
  for (size_t l = 0; l < levels_.size(); ++l) {
    auto& level = levels_[l];
    const auto cls_feat = level.cls_tower[1]->forward(level.cls_tower[0]->forward(features[l]));
    const auto reg_feat = level.reg_tower[1]->forward(level.reg_tower[0]->forward(features[l]));
    cls[l] = level.cls_pred->forward(cls_feat);
    reg[l] = distances_from_raw(level.reg_pred->forward(reg_feat), strides_[l], exp_on_reg_);
  }
  cls.insert(cls.end(), reg.begin(), reg.end());
  return cls;
}

torch::Tensor distances_from_raw(const torch::Tensor& raw, int64_t stride, bool exp_on_reg) {
  const auto value = raw.to(torch::kFloat32);
  return (exp_on_reg ? value.exp() : value) * static_cast<double>(stride);
}

}  // namespace libreyolo::families::rtmdet

#include "network.hpp"

#include <libreyolo/sdk/upsample.hpp>
#include <torch/torch.h>

#include <stdexcept>

namespace libreyolo::families::yolox {

namespace {

// clang-format off
const SizeConfig kSizes[] = {
    // size depth width  depthwise base_channels base_depth neck_depth
    {"n", 0.33, 0.25,  true,  16, 1, 1},
    {"t", 0.33, 0.375, false, 24, 1, 1},
    {"s", 0.33, 0.50,  false, 32, 1, 1},
    {"m", 0.67, 0.75,  false, 48, 2, 2},
    {"l", 1.00, 1.00,  false, 64, 3, 3},
    {"x", 1.33, 1.25,  false, 80, 4, 4},
};
// clang-format on

}  // namespace

const SizeConfig& size_config(const std::string& size) {
  for (const auto& config : kSizes)
    if (size == config.size) return config;
  throw std::invalid_argument("YOLOX has no size '" + size + "': choose one of n, t, s, m, l, x");
}

torch::Tensor CSPDarknet::Stage::operator()(const torch::Tensor& x) const {
  auto y = down->forward(x);
  if (spp) y = spp->forward(y);
  return csp->forward(y);
}

torch::nn::ModuleList CSPDarknet::add_stage(const char* name, Stage& stage, int64_t in_channels, int64_t out_channels,
                                            int64_t depth, bool spp, bool shortcut, bool depthwise) {
  torch::nn::ModuleList list;
  stage.down = make_conv(depthwise, in_channels, out_channels, 3, 2);
  list->push_back(stage.down);
  if (spp) {
    stage.spp = std::make_shared<SPPBottleneck>(out_channels, out_channels);
    list->push_back(stage.spp);
  }
  stage.csp = std::make_shared<CSPLayer>(out_channels, out_channels, depth, shortcut, depthwise);
  list->push_back(stage.csp);
  return register_module(name, list);
}

CSPDarknet::CSPDarknet(const SizeConfig& cfg) {
  const int64_t c = cfg.base_channels, d = cfg.base_depth;
  const bool dw = cfg.depthwise;
  stem = register_module("stem", std::make_shared<Focus>(3, c, 3));
  dark2 = add_stage("dark2", stages_[0], c, 2 * c, d, false, true, dw);
  dark3 = add_stage("dark3", stages_[1], 2 * c, 4 * c, 3 * d, false, true, dw);
  dark4 = add_stage("dark4", stages_[2], 4 * c, 8 * c, 3 * d, false, true, dw);
  dark5 = add_stage("dark5", stages_[3], 8 * c, 16 * c, d, true, false, dw);
}

FeatureMaps CSPDarknet::forward(const torch::Tensor& x) {
  const auto p2 = stages_[0](stem->forward(x));
  const auto p3 = stages_[1](p2);
  const auto p4 = stages_[2](p3);
  return {p3, p4, stages_[3](p4)};
}

YOLOPAFPN::YOLOPAFPN(const SizeConfig& cfg) {
  const auto [c3, c4, c5] = cfg.level_channels();
  const int64_t n = cfg.neck_depth;
  const bool dw = cfg.depthwise;
  backbone = register_module("backbone", std::make_shared<CSPDarknet>(cfg));
  lateral_conv0 = register_module("lateral_conv0", std::make_shared<BaseConv>(c5, c4, 1, 1));
  C3_p4 = register_module("C3_p4", std::make_shared<CSPLayer>(2 * c4, c4, n, false, dw));
  reduce_conv1 = register_module("reduce_conv1", std::make_shared<BaseConv>(c4, c3, 1, 1));
  C3_p3 = register_module("C3_p3", std::make_shared<CSPLayer>(2 * c3, c3, n, false, dw));
  bu_conv2 = register_module("bu_conv2", make_conv(dw, c3, c3, 3, 2));
  C3_n3 = register_module("C3_n3", std::make_shared<CSPLayer>(2 * c3, c4, n, false, dw));
  bu_conv1 = register_module("bu_conv1", make_conv(dw, c4, c4, 3, 2));
  C3_n4 = register_module("C3_n4", std::make_shared<CSPLayer>(2 * c4, c5, n, false, dw));
}

YOLOPAFPN::TopDown YOLOPAFPN::top_down(const torch::Tensor& images) {
  const auto [x2, x1, x0] = backbone->forward(images);
  auto fpn_out0 = lateral_conv0->forward(x0);
  const auto f_out0 = C3_p4->forward(torch::cat({sdk::upsample_nearest_2x(fpn_out0), x1}, 1));
  auto fpn_out1 = reduce_conv1->forward(f_out0);
  auto pan_out2 = C3_p3->forward(torch::cat({sdk::upsample_nearest_2x(fpn_out1), x2}, 1));
  return {fpn_out0, fpn_out1, pan_out2};
}

std::array<torch::Tensor, 2> YOLOPAFPN::bottom_up(const TopDown& top) {
  auto pan_out1 = C3_n3->forward(torch::cat({bu_conv2->forward(top.pan_out2), top.fpn_out1}, 1));
  auto pan_out0 = C3_n4->forward(torch::cat({bu_conv1->forward(pan_out1), top.fpn_out0}, 1));
  return {pan_out1, pan_out0};
}

}  // namespace libreyolo::families::yolox

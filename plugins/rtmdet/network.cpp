#include "network.hpp"

#include <libreyolo/sdk/upsample.hpp>
#include <torch/torch.h>

namespace libreyolo::families::rtmdet {

torch::Tensor CSPNeXt::Stage::operator()(const torch::Tensor& x) const {
  auto y = down->forward(x);
  if (spp) y = spp->forward(y);
  return csp->forward(y);
}

torch::nn::ModuleList CSPNeXt::add_stage(const char* name, Stage& stage, int64_t in_channels, int64_t out_channels,
                                         int64_t blocks, bool spp, bool add_identity) {
  torch::nn::ModuleList list;
  stage.down = std::make_shared<ConvBNAct>(in_channels, out_channels, 3, 2, 1);
  list->push_back(stage.down);
  if (spp) {
    stage.spp = std::make_shared<SPPBottleneck>(out_channels, out_channels);
    list->push_back(stage.spp);
  }
  stage.csp = std::make_shared<CSPLayer>(out_channels, out_channels, blocks, add_identity, /*channel_attention=*/true);
  list->push_back(stage.csp);
  return register_module(name, list);
}

CSPNeXt::CSPNeXt(const SizeConfig& cfg) {
  const int64_t half = cfg.stem_channels(), base = cfg.base_channels;
  stem_ = {std::make_shared<ConvBNAct>(3, half, 3, 2, 1), std::make_shared<ConvBNAct>(half, half, 3, 1, 1),
           std::make_shared<ConvBNAct>(half, base, 3, 1, 1)};
  stem = register_module("stem", torch::nn::ModuleList());
  for (const auto& conv : stem_) stem->push_back(conv);
  const auto c = cfg.stage_channels();
  const auto& n = cfg.stage_blocks;
  stage1 = add_stage("stage1", stages_[0], base, c[0], n[0], false, true);
  stage2 = add_stage("stage2", stages_[1], c[0], c[1], n[1], false, true);
  stage3 = add_stage("stage3", stages_[2], c[1], c[2], n[2], false, true);
  stage4 = add_stage("stage4", stages_[3], c[2], c[3], n[3], true, false);
}

FeatureMaps CSPNeXt::forward(const torch::Tensor& x) {
  auto y = x;
  for (const auto& conv : stem_) y = conv->forward(y);
  const auto p3 = stages_[1](stages_[0](y));
  const auto p4 = stages_[2](p3);
  return {p3, p4, stages_[3](p4)};
}

CSPNeXtPAFPN::CSPNeXtPAFPN(const SizeConfig& cfg) {
  const auto& c = cfg.neck_in;
  const int64_t n = cfg.csp_blocks;
  // Python registers the five ModuleLists in this order, then fills them.
  reduce_layers = register_module("reduce_layers", torch::nn::ModuleList());
  top_down_blocks = register_module("top_down_blocks", torch::nn::ModuleList());
  downsamples = register_module("downsamples", torch::nn::ModuleList());
  bottom_up_blocks = register_module("bottom_up_blocks", torch::nn::ModuleList());
  out_convs = register_module("out_convs", torch::nn::ModuleList());
  for (size_t i = 0; i < 2; ++i) {
    const size_t low = 1 - i;  // the level the top-down step i produces
    levels_.reduce[i] = std::make_shared<ConvBNAct>(c[low + 1], c[low], 1);
    levels_.top_down[i] = std::make_shared<CSPLayer>(2 * c[low], c[low], n, false, false);
    reduce_layers->push_back(levels_.reduce[i]);
    top_down_blocks->push_back(levels_.top_down[i]);
  }
  for (size_t l = 0; l < 2; ++l) {
    levels_.down[l] = std::make_shared<ConvBNAct>(c[l], c[l], 3, 2, 1);
    levels_.bottom_up[l] = std::make_shared<CSPLayer>(2 * c[l], c[l + 1], n, false, false);
    downsamples->push_back(levels_.down[l]);
    bottom_up_blocks->push_back(levels_.bottom_up[l]);
  }
  for (size_t l = 0; l < 3; ++l) {
    levels_.out[l] = std::make_shared<ConvBNAct>(c[l], cfg.neck_out, 3, 1, 1);
    out_convs->push_back(levels_.out[l]);
  }
}

FeatureMaps CSPNeXtPAFPN::forward(const FeatureMaps& features) {
  const auto& [c3, c4, c5] = features;
  // Top-down; the reduced maps (not the CSPLayer outputs) feed the bottom-up path.
  const auto reduced5 = levels_.reduce[0]->forward(c5);
  const auto inner4 = levels_.top_down[0]->forward(torch::cat({sdk::upsample_nearest_2x(reduced5), c4}, 1));
  const auto reduced4 = levels_.reduce[1]->forward(inner4);
  const auto out3 = levels_.top_down[1]->forward(torch::cat({sdk::upsample_nearest_2x(reduced4), c3}, 1));
  // Bottom-up.
  const auto out4 = levels_.bottom_up[0]->forward(torch::cat({levels_.down[0]->forward(out3), reduced4}, 1));
  const auto out5 = levels_.bottom_up[1]->forward(torch::cat({levels_.down[1]->forward(out4), reduced5}, 1));
  return {levels_.out[0]->forward(out3), levels_.out[1]->forward(out4), levels_.out[2]->forward(out5)};
}

}  // namespace libreyolo::families::rtmdet

#include "hybrid_encoder.hpp"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace libreyolo::rtdetr {
namespace {

void fail(const std::string& what) { throw std::invalid_argument("HybridEncoder: " + what); }

void check_options(const HybridEncoderOptions& o) {
  const auto levels = static_cast<int64_t>(o.in_channels.size());
  if (levels < 1) fail("in_channels is empty; pass the backbone's out_channels()");
  for (const auto c : o.in_channels)
    if (c <= 0) fail("in_channels must be positive, got " + std::to_string(c));
  if (static_cast<int64_t>(o.feat_strides.size()) != levels)
    fail("feat_strides has " + std::to_string(o.feat_strides.size()) + " entries for " + std::to_string(levels) +
         " input levels; give one stride per level");
  if (o.hidden_dim <= 0 || o.nhead <= 0 || o.hidden_dim % o.nhead != 0 || o.hidden_dim % 4 != 0)
    fail("hidden_dim (" + std::to_string(o.hidden_dim) + ") must be a positive multiple of nhead (" +
         std::to_string(o.nhead) + ") and of 4 (the sin-cos position embedding)");
  if (o.dim_feedforward <= 0) fail("dim_feedforward must be positive, got " + std::to_string(o.dim_feedforward));
  if (!(o.dropout >= 0.0 && o.dropout < 1.0)) fail("dropout must be in [0, 1), got " + std::to_string(o.dropout));
  if (!(o.expansion > 0.0)) fail("expansion must be positive, got " + std::to_string(o.expansion));
  if (!(o.depth_mult >= 0.0)) fail("depth_mult must be non-negative, got " + std::to_string(o.depth_mult));
  if (o.num_encoder_layers < 0) fail("num_encoder_layers must be >= 0, got " + std::to_string(o.num_encoder_layers));
  for (const auto i : o.use_encoder_idx)
    if (i < 0 || i >= levels)
      fail("use_encoder_idx entry " + std::to_string(i) + " is not an input level (0.." + std::to_string(levels - 1) +
           ")");
}

template <typename Module>
std::shared_ptr<Module> add(const std::shared_ptr<torch::nn::ModuleListImpl>& list, std::shared_ptr<Module> module) {
  list->push_back(module);
  return module;
}

}  // namespace

HybridEncoderImpl::HybridEncoderImpl(const HybridEncoderOptions& options)
    : options_(options), embeddings_(options.hidden_dim, options.pe_temperature) {
  check_options(options);
  const int64_t hidden = options.hidden_dim;
  auto input_proj = register_module("input_proj", torch::nn::ModuleList());
  for (const auto channels : options.in_channels) {
    input_proj_.emplace_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, hidden, 1).bias(false)),
                             sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(hidden)));
    input_proj->push_back(input_proj_.back().ptr());
  }

  auto encoder = register_module("encoder", torch::nn::ModuleList());
  const sdk::detr::TransformerEncoderLayerOptions layer{hidden, options.nhead, options.dim_feedforward, options.dropout};
  for (size_t i = 0; i < options.use_encoder_idx.size(); ++i) {
    encoders_.push_back(add(encoder, std::make_shared<sdk::detr::TransformerEncoder>(layer, options.num_encoder_layers)));
    // Deep copies of one layer in LibreYOLO: every encoder starts from the same weights.
    if (i > 0) sdk::detr::copy_parameters(*encoders_.front(), *encoders_.back());
  }

  // Python's round(): half to even, which std::nearbyint does in the default rounding mode.
  const auto blocks = static_cast<int64_t>(std::nearbyint(3.0 * options.depth_mult));
  ConvNormOptions lateral{hidden, hidden, 1, 1};
  lateral.act = Activation::silu;
  ConvNormOptions downsample{hidden, hidden, 3, 2};
  downsample.act = Activation::silu;
  auto lateral_convs = register_module("lateral_convs", torch::nn::ModuleList());
  auto fpn_blocks = register_module("fpn_blocks", torch::nn::ModuleList());
  auto downsample_convs = register_module("downsample_convs", torch::nn::ModuleList());
  auto pan_blocks = register_module("pan_blocks", torch::nn::ModuleList());
  for (size_t i = 0; i + 1 < options.in_channels.size(); ++i) {
    lateral_convs_.push_back(add(lateral_convs, std::make_shared<ConvNormLayer>(lateral)));
    fpn_blocks_.push_back(
        add(fpn_blocks, std::make_shared<CSPRepLayer>(2 * hidden, hidden, blocks, options.expansion, Activation::silu)));
  }
  for (size_t i = 0; i + 1 < options.in_channels.size(); ++i) {
    downsample_convs_.push_back(add(downsample_convs, std::make_shared<ConvNormLayer>(downsample)));
    pan_blocks_.push_back(
        add(pan_blocks, std::make_shared<CSPRepLayer>(2 * hidden, hidden, blocks, options.expansion, Activation::silu)));
  }
}

torch::Tensor HybridEncoderImpl::position_embedding(int64_t h, int64_t w, const torch::Tensor& like) {
  return embeddings_.get(h, w, like);
}

std::vector<torch::Tensor> HybridEncoderImpl::forward(const std::vector<torch::Tensor>& feats) {
  const size_t levels = options_.in_channels.size();
  TORCH_CHECK(feats.size() == levels, "HybridEncoder: expected ", levels, " feature maps (one per in_channels entry), got ",
              feats.size());
  std::vector<torch::Tensor> projected;
  for (size_t i = 0; i < levels; ++i) {
    TORCH_CHECK(feats[i].dim() == 4 && feats[i].size(1) == options_.in_channels[i], "HybridEncoder: level ", i,
                " must be [N, ", options_.in_channels[i], ", H, W], got ", feats[i].sizes());
    projected.push_back(input_proj_[i]->forward(feats[i]));
  }
  sdk::detr::encode_levels(encoders_, options_.use_encoder_idx, projected, embeddings_);
  return sdk::detr::fuse_cross_scale(
      projected, sdk::detr::cross_scale_blocks(lateral_convs_, fpn_blocks_, downsample_convs_, pan_blocks_));
}

}  // namespace libreyolo::rtdetr

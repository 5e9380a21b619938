#pragma once
// RT-DETR's HybridEncoder (LibreYOLO's libreyolo/models/rtdetr/nn.py): 1x1 conv + BatchNorm
// projections of the backbone maps to hidden_dim, the AIFI transformer encoder on the chosen
// levels (the stride-32 one), then CCFF: a top-down FPN and a bottom-up PAN of CSPRepLayers.
// Returns one [N, hidden_dim, H_i, W_i] map per input level, finest first. Keys match
// LibreYOLO's: input_proj.<i>.{0,1}.*, encoder.<j>.layers.<l>.*, lateral_convs.*, fpn_blocks.*,
// downsample_convs.*, pan_blocks.*. The position embedding is no state (not in state_dict), as
// in LibreYOLO.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "conv_norm.hpp"
#include "rep_blocks.hpp"
#include "libreyolo/sdk/detr/hybrid_encoder_flow.hpp"
#include "libreyolo/sdk/detr/transformer_encoder.hpp"

namespace libreyolo::rtdetr {

struct HybridEncoderOptions {
  std::vector<int64_t> in_channels;  // the backbone's out_channels()
  std::vector<int64_t> feat_strides{8, 16, 32};
  int64_t hidden_dim = 256;
  int64_t nhead = 8;
  int64_t dim_feedforward = 1024;
  double dropout = 0.0;
  double expansion = 1.0;   // CSPRepLayer hidden width = int(hidden_dim * expansion)
  double depth_mult = 1.0;  // RepVgg blocks per CSPRepLayer = round(3 * depth_mult), Python's round
  std::vector<int64_t> use_encoder_idx{2};
  int64_t num_encoder_layers = 1;
  double pe_temperature = 10000;
};

class HybridEncoderImpl : public torch::nn::Module {
 public:
  // Throws std::invalid_argument for inconsistent options (what is wrong and what to pass).
  explicit HybridEncoderImpl(const HybridEncoderOptions& options);

  // feats: one map per in_channels entry, [N, in_channels[i], H_i, W_i], each level half the
  // size of the previous one. No host synchronisation; see position_embedding for the cache.
  std::vector<torch::Tensor> forward(const std::vector<torch::Tensor>& feats);

  // The embedding for an h x w map, of `like`'s device and dtype: built on first use (device ops
  // only) and cached per (h, w, device, dtype), so steady-state steps (and CUDA graph replays of
  // a capture made after a warm-up step) allocate nothing for it.
  torch::Tensor position_embedding(int64_t h, int64_t w, const torch::Tensor& like);

  const HybridEncoderOptions& options() const { return options_; }

 private:

  HybridEncoderOptions options_;
  std::vector<torch::nn::Sequential> input_proj_;
  std::vector<std::shared_ptr<sdk::detr::TransformerEncoder>> encoders_;
  std::vector<std::shared_ptr<ConvNormLayer>> lateral_convs_, downsample_convs_;
  std::vector<std::shared_ptr<CSPRepLayer>> fpn_blocks_, pan_blocks_;
  sdk::detr::PositionEmbeddingCache embeddings_;
};
TORCH_MODULE(HybridEncoder);

}  // namespace libreyolo::rtdetr

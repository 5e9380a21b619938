#pragma once
// D-FINE's HybridEncoder (LibreYOLO's libreyolo/models/dfine/encoder.py): 1x1 conv + BatchNorm
// projections of the backbone maps to hidden_dim, AIFI on the chosen level (the coarsest), then
// CCFF: a top-down FPN (1x1 lateral conv without activation, nearest 2x upsampling,
// RepNCSPELAN4 fusion) and a bottom-up PAN (SCDown, RepNCSPELAN4). Returns one
// [N, hidden_dim, H_i, W_i] map per input level, finest first.
//
// What differs from RT-DETR's: the projections are named (input_proj.<i>.{conv,norm}), the
// lateral convs have no activation, fusion is RepNCSPELAN4 instead of CSPRepLayer, and the
// downsampling is SCDown (keys downsample_convs.<i>.0.{cv1,cv2}). The position embedding is no
// state (not in state_dict), as in LibreYOLO.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "libreyolo/sdk/detr/hybrid_encoder_flow.hpp"
#include "libreyolo/sdk/detr/transformer_encoder.hpp"
#include "conv_norm.hpp"
#include "elan_blocks.hpp"

namespace libreyolo::dfine {

struct HybridEncoderOptions {
  std::vector<int64_t> in_channels;  // the backbone's out_channels()
  int64_t hidden_dim = 256;
  int64_t nhead = 8;
  int64_t dim_feedforward = 1024;
  double expansion = 1.0;   // RepNCSPELAN4 c4 = round(floor(expansion * hidden_dim / 2))
  double depth_mult = 1.0;  // VGG blocks per CSPLayer = round(3 * depth_mult), Python's round
  std::vector<int64_t> use_encoder_idx{2};
  int64_t num_encoder_layers = 1;
  double pe_temperature = 10000;
};

class HybridEncoderImpl : public torch::nn::Module {
 public:
  // Throws std::invalid_argument for inconsistent options (what is wrong and what to pass).
  explicit HybridEncoderImpl(const HybridEncoderOptions& options);

  // feats: one map per in_channels entry, [N, in_channels[i], H_i, W_i], each level half the
  // size of the previous one. No host synchronisation.
  std::vector<torch::Tensor> forward(const std::vector<torch::Tensor>& feats);

  // The embedding for an h x w map, of `like`'s device and dtype: built on first use (device ops
  // only) and cached per (h, w, device, dtype), so steady-state steps and CUDA graph replays
  // allocate nothing for it.
  torch::Tensor position_embedding(int64_t h, int64_t w, const torch::Tensor& like);

  const HybridEncoderOptions& options() const { return options_; }

 private:
  void build_ccff();

  HybridEncoderOptions options_;
  std::vector<torch::nn::Sequential> input_proj_;
  std::vector<std::shared_ptr<sdk::detr::TransformerEncoder>> encoders_;
  std::vector<std::shared_ptr<ConvNormLayer>> lateral_convs_;
  std::vector<std::shared_ptr<SCDown>> downsample_convs_;
  std::vector<std::shared_ptr<RepNCSPELAN4>> fpn_blocks_, pan_blocks_;
  sdk::detr::PositionEmbeddingCache embeddings_;
};
TORCH_MODULE(HybridEncoder);

}  // namespace libreyolo::dfine

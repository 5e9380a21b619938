#pragma once
// AIFI, the hybrid encoder's attention over the coarsest level: a post-norm transformer encoder
// over one flattened feature map (LibreYOLO's TransformerEncoderLayer / TransformerEncoder in
// libreyolo/models/dfine/encoder.py), and the fixed 2-D sin-cos position embedding added to its
// queries and keys. The same math as RT-DETR's; families do not share folders, so D-FINE has its
// own copy.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "libreyolo/sdk/detr/multihead_attention.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::dfine {

// LibreYOLO's build_2d_sincos_position_embedding(w, h, dim, temperature): [1, w * h, dim]
// float32 on `device`, rows [sin(x o), cos(x o), sin(y o), cos(y o)] with o_i =
// temperature^(-i / (dim / 4)). As in LibreYOLO, token k gets x = k / h and y = k % h while the
// features are flattened row-major: the two agree on square maps only, and this reproduces the
// reference on the others too. Device ops only, so it may run inside a CUDA graph capture.
// Throws std::invalid_argument unless dim is a positive multiple of 4 and w, h are positive.
torch::Tensor sincos_position_embedding_2d(int64_t w, int64_t h, int64_t dim, double temperature,
                                           const torch::Device& device);

struct AifiLayerOptions {
  int64_t d_model = 256;
  int64_t nhead = 8;
  int64_t dim_feedforward = 1024;
};

// src = norm1(src + attn(src + pos, src + pos, src)); src = norm2(src + linear2(gelu(linear1(src)))).
// Keys self_attn.*, linear1.*, linear2.*, norm1.*, norm2.* (LibreYOLO's order). Dropout is 0 in
// every D-FINE config and is not built.
class AifiLayer : public torch::nn::Module {
 public:
  explicit AifiLayer(const AifiLayerOptions& options);
  // src [N, L, E]; pos_embed [1 or N, L, E] of src's dtype and device.
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& pos_embed);

 private:
  sdk::detr::MultiheadAttention self_attn_{nullptr};
  sdk::Linear linear1_{nullptr}, linear2_{nullptr};
  torch::nn::LayerNorm norm1_{nullptr}, norm2_{nullptr};
};

// Copies every parameter of `from` into the same-named one of `to` (same architecture): what
// LibreYOLO's copy.deepcopy of one prototype layer amounts to at initialisation.
void copy_parameters(const torch::nn::Module& from, torch::nn::Module& to);

// num_layers layers under "layers", each fed the previous one's output and the same embedding.
class Aifi : public torch::nn::Module {
 public:
  Aifi(const AifiLayerOptions& options, int64_t num_layers);
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& pos_embed);

 private:
  std::vector<std::shared_ptr<AifiLayer>> layers_;
};

}  // namespace libreyolo::dfine

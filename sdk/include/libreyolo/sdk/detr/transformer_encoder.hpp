#pragma once
// The hybrid encoders' attention over the coarsest feature map (RT-DETR and D-FINE call it AIFI):
// a post-norm transformer encoder over one flattened map, LibreYOLO's TransformerEncoderLayer /
// TransformerEncoder, and the fixed 2-D sin-cos position embedding added to its queries and keys.
// Both DETR plugins build theirs from here.

#include <torch/nn/module.h>
#include <torch/nn/modules/normalization.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "libreyolo/sdk/detr/multihead_attention.hpp"
#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::sdk::detr {

// LibreYOLO's build_2d_sincos_position_embedding(w, h, dim, temperature): [1, w * h, dim] float32
// on `device`, columns [sin(x f), cos(x f), sin(y f), cos(y f)] with f_i = temperature^(-i / (dim
// / 4)). As in LibreYOLO (and the official RT-DETR), token k gets x = k / h and y = k % h while
// the features are flattened row-major (k = y' * w + x'): the two agree on square maps only, and
// this reproduces the reference on the others too. Built from device operations alone (no host
// data), so it may run inside a CUDA graph capture.
// Throws std::invalid_argument unless dim is a positive multiple of 4 and w, h are positive.
LIBREYOLO_SDK_API torch::Tensor sincos_position_embedding_2d(int64_t w, int64_t h, int64_t dim,
                                                             double temperature, const torch::Device& device);

struct TransformerEncoderLayerOptions {
  int64_t d_model = 256;
  int64_t nhead = 8;
  int64_t dim_feedforward = 1024;
  double dropout = 0.0;  // on the attention, the feed-forward's hidden layer and both residuals
};

// src = norm1(src + attn(src + pos, src + pos, src)); out = norm2(src + linear2(gelu(linear1(src)))).
// Keys self_attn.*, linear1.*, linear2.*, norm1.*, norm2.* (LibreYOLO's order).
class LIBREYOLO_SDK_API TransformerEncoderLayer : public torch::nn::Module {
 public:
  explicit TransformerEncoderLayer(const TransformerEncoderLayerOptions& options);
  // src [N, L, E]; pos_embed [1 or N, L, E] of src's dtype and device.
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& pos_embed);

 private:
  torch::Tensor dropped(const torch::Tensor& t) const;

  double dropout_;
  MultiheadAttention self_attn_{nullptr};
  sdk::Linear linear1_{nullptr}, linear2_{nullptr};
  torch::nn::LayerNorm norm1_{nullptr}, norm2_{nullptr};
};

// Copies every parameter of `from` into the same-named one of `to` (same architecture): what
// LibreYOLO's copy.deepcopy of one prototype layer amounts to at initialisation.
LIBREYOLO_SDK_API void copy_parameters(const torch::nn::Module& from, torch::nn::Module& to);

// num_layers layers under "layers", each fed the previous one's output and the same embedding;
// every layer starts with the first one's weights, as LibreYOLO's deep copies do.
class LIBREYOLO_SDK_API TransformerEncoder : public torch::nn::Module {
 public:
  TransformerEncoder(const TransformerEncoderLayerOptions& options, int64_t num_layers);
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& pos_embed);
  size_t num_layers() const { return layers_.size(); }

 private:
  std::vector<std::shared_ptr<TransformerEncoderLayer>> layers_;
};

}  // namespace libreyolo::sdk::detr

#pragma once
// One D-FINE decoder layer (LibreYOLO's TransformerDecoderLayer in libreyolo/models/dfine/
// decoder.py): self-attention over the queries (denoising groups kept apart by the mask) with a
// post-norm, deformable cross-attention into the encoder memory merged by a learned gate instead
// of RT-DETR's residual + norm2, a ReLU feed-forward, and the float16-range clamp before the last
// norm. Keys: self_attn, norm1, cross_attn, gateway.{gate,norm}, linear1, linear2, norm3.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "deformable_attention.hpp"
#include "libreyolo/sdk/detr/multihead_attention.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::dfine {

// norm(g1 * x1 + g2 * x2) with (g1, g2) = sigmoid(gate(cat(x1, x2))) split in halves. Starts as
// an even blend: zero weight, bias logit(0.5) = 0.
class GateImpl : public torch::nn::Module {
 public:
  explicit GateImpl(int64_t d_model);
  torch::Tensor forward(const torch::Tensor& x1, const torch::Tensor& x2);

  sdk::Linear gate{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(Gate);

struct DecoderMemory {
  torch::Tensor memory;             // [B, sum(h*w), D] the flattened multi-scale features
  sdk::detr::SpatialShapes shapes;  // (h, w) per level
};

class DecoderLayerImpl : public torch::nn::Module {
 public:
  DecoderLayerImpl(int64_t d_model, int64_t n_head, int64_t dim_feedforward, std::vector<int64_t> num_points);

  // target [B, Q, D]; reference_points [B, Q, 1, 4] (cx, cy, w, h in [0, 1]); attn_mask [Q, Q]
  // bool (true = blocked) or undefined; query_pos [B, Q, D].
  torch::Tensor forward(torch::Tensor target, const torch::Tensor& reference_points, const DecoderMemory& memory,
                        const torch::Tensor& attn_mask, const torch::Tensor& query_pos);

 private:
  sdk::detr::MultiheadAttention self_attn{nullptr};
  torch::nn::LayerNorm norm1{nullptr}, norm3{nullptr};
  DeformableAttention cross_attn{nullptr};
  Gate gateway{nullptr};
  sdk::Linear linear1{nullptr}, linear2{nullptr};
};
TORCH_MODULE(DecoderLayer);

}  // namespace libreyolo::dfine

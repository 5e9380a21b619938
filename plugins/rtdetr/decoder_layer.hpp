#pragma once
// One RT-DETR decoder layer (LibreYOLO's TransformerDecoderLayer): self-attention over the
// queries (denoising groups kept apart by the mask), multi-scale deformable cross-attention
// into the encoder's memory, a ReLU feed-forward; post-norm after each, and the float16
// clamp before the last norm. Keys: self_attn, norm1, cross_attn, norm2, linear1, linear2,
// norm3 (dropout is 0 and has no parameters).

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include "libreyolo/sdk/detr/ms_deform_attn.hpp"
#include "libreyolo/sdk/detr/multihead_attention.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::rtdetr {

struct DecoderMemory {
  torch::Tensor memory;              // [B, sum(h*w), D] the flattened multi-scale features
  sdk::detr::SpatialShapes shapes;   // (h, w) per level
};

class DecoderLayerImpl : public torch::nn::Module {
 public:
  DecoderLayerImpl(int64_t d_model, int64_t n_head, int64_t dim_feedforward, int64_t n_levels, int64_t n_points);

  // tgt [B, Q, D]; reference_points [B, Q, 1, 4] (cx, cy, w, h in [0, 1]); attn_mask [Q, Q]
  // bool (true = blocked) or undefined; query_pos [B, Q, D].
  torch::Tensor forward(torch::Tensor tgt, const torch::Tensor& reference_points, const DecoderMemory& memory,
                        const torch::Tensor& attn_mask, const torch::Tensor& query_pos);

 private:
  sdk::detr::MultiheadAttention self_attn{nullptr};
  torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};
  sdk::detr::MSDeformableAttention cross_attn{nullptr};
  sdk::Linear linear1{nullptr}, linear2{nullptr};
};
TORCH_MODULE(DecoderLayer);

}  // namespace libreyolo::rtdetr

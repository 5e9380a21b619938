#include "decoder_layer.hpp"

#include <torch/torch.h>

#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::rtdetr {

DecoderLayerImpl::DecoderLayerImpl(int64_t d_model, int64_t n_head, int64_t dim_feedforward, int64_t n_levels,
                                   int64_t n_points) {
  // Registration order = LibreYOLO's state-dict order.
  self_attn = register_module("self_attn", sdk::detr::MultiheadAttention(d_model, n_head));
  norm1 = register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})));
  cross_attn = register_module("cross_attn", sdk::detr::MSDeformableAttention(d_model, n_head, n_levels, n_points));
  norm2 = register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})));
  linear1 = register_module("linear1", sdk::Linear(d_model, dim_feedforward));
  linear2 = register_module("linear2", sdk::Linear(dim_feedforward, d_model));
  norm3 = register_module("norm3", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})));
}

torch::Tensor DecoderLayerImpl::forward(torch::Tensor tgt, const torch::Tensor& reference_points,
                                        const DecoderMemory& memory, const torch::Tensor& attn_mask,
                                        const torch::Tensor& query_pos) {
  const auto q = tgt + query_pos;
  tgt = norm1(tgt + self_attn(q, q, tgt, attn_mask));
  tgt = norm2(tgt + cross_attn(tgt + query_pos, reference_points, memory.memory, memory.shapes));
  tgt = tgt + linear2(torch::relu(linear1(tgt)));
  // LibreYOLO clamps to float16's range before the last norm (an overflow guard under AMP).
  return norm3(tgt.clamp(-65504.0, 65504.0));
}

}  // namespace libreyolo::rtdetr

#include "decoder_layer.hpp"

#include <torch/torch.h>

#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::dfine {

GateImpl::GateImpl(int64_t d_model) {
  gate = register_module("gate", sdk::Linear(2 * d_model, 2 * d_model));
  norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})));
  torch::NoGradGuard no_grad;
  gate->weight.zero_();
  gate->bias.zero_();  // logit(0.5)
}

torch::Tensor GateImpl::forward(const torch::Tensor& x1, const torch::Tensor& x2) {
  const auto gates = torch::sigmoid(gate(torch::cat({x1, x2}, -1))).chunk(2, -1);
  return norm(gates[0] * x1 + gates[1] * x2);
}

DecoderLayerImpl::DecoderLayerImpl(int64_t d_model, int64_t n_head, int64_t dim_feedforward,
                                   std::vector<int64_t> num_points) {
  // Registration order = LibreYOLO's state-dict order.
  self_attn = register_module("self_attn", sdk::detr::MultiheadAttention(d_model, n_head));
  norm1 = register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})));
  cross_attn = register_module("cross_attn", DeformableAttention(d_model, n_head, std::move(num_points)));
  gateway = register_module("gateway", Gate(d_model));
  linear1 = register_module("linear1", sdk::Linear(d_model, dim_feedforward));
  linear2 = register_module("linear2", sdk::Linear(dim_feedforward, d_model));
  norm3 = register_module("norm3", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})));
  torch::nn::init::xavier_uniform_(linear1->weight);
  torch::nn::init::xavier_uniform_(linear2->weight);
}

torch::Tensor DecoderLayerImpl::forward(torch::Tensor target, const torch::Tensor& reference_points,
                                        const DecoderMemory& memory, const torch::Tensor& attn_mask,
                                        const torch::Tensor& query_pos) {
  const auto q = target + query_pos;
  target = norm1(target + self_attn(q, q, target, attn_mask));
  const auto sampled = cross_attn(target + query_pos, reference_points, memory.memory, memory.shapes);
  target = gateway(target, sampled);
  target = target + linear2(torch::relu(linear1(target)));
  // LibreYOLO clamps to float16's range before the last norm (an overflow guard).
  return norm3(target.clamp(-65504.0, 65504.0));
}

}  // namespace libreyolo::dfine

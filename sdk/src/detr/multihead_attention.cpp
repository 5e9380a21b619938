#include "libreyolo/sdk/detr/multihead_attention.hpp"

#include <torch/torch.h>
#include <torch/version.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::sdk::detr {
namespace {

// [B, L, D] -> [B, H, L, D / H]
torch::Tensor split_heads(const torch::Tensor& x, int64_t heads) {
  return x.view({x.size(0), x.size(1), heads, x.size(2) / heads}).transpose(1, 2);
}

// softmax(q k^T / sqrt(d)) v per head: LibTorch's fused kernels where it has them (2.0 and
// later), the same arithmetic written out otherwise (Debian's LibTorch 1.13, the CPU build).
torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& blocked,
                     double dropout) {
#if TORCH_VERSION_MAJOR >= 2
  std::optional<torch::Tensor> allowed;
  if (blocked.defined()) allowed = blocked.logical_not();  // SDPA's boolean masks mark what MAY attend
  return at::scaled_dot_product_attention(q, k, v, allowed, dropout);
#else
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(q.size(-1)));
  if (blocked.defined()) scores = scores.masked_fill(blocked, -std::numeric_limits<double>::infinity());
  auto weights = torch::softmax(scores, -1);
  if (dropout > 0.0) weights = torch::dropout(weights, dropout, /*train=*/true);
  return torch::matmul(weights, v);
#endif
}

}  // namespace

MultiheadAttentionImpl::MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads, double dropout)
    : embed_dim_(embed_dim), num_heads_(num_heads), dropout_(dropout) {
  if (embed_dim <= 0 || num_heads <= 0 || embed_dim % num_heads != 0) {
    throw std::invalid_argument("multi-head attention: embed_dim " + std::to_string(embed_dim) +
                                " must be a positive multiple of num_heads " + std::to_string(num_heads));
  }
  in_proj_weight = register_parameter("in_proj_weight", torch::empty({3 * embed_dim, embed_dim}));
  in_proj_bias = register_parameter("in_proj_bias", torch::zeros({3 * embed_dim}));
  out_proj = register_module("out_proj", sdk::Linear(embed_dim, embed_dim));
  // PyTorch's _reset_parameters: Xavier-uniform input projection, zero biases; the output
  // projection keeps nn.Linear's default weight init.
  torch::NoGradGuard no_grad;
  torch::nn::init::xavier_uniform_(in_proj_weight);
  out_proj->bias.zero_();
}

torch::Tensor MultiheadAttentionImpl::forward(const torch::Tensor& query, const torch::Tensor& key,
                                              const torch::Tensor& value, const torch::Tensor& blocked) {
  const int64_t d = embed_dim_;  // the output's width
  // torch::linear, as Python's F.linear: one operator (LibTorch's C++ F::linear is three for [B, L, D]).
  // chunk, as PyTorch's packed projection does: one split whose backward is one concatenation,
  // where three narrows would each fill a zero tensor of the whole projection and copy into it.
  const auto w = in_proj_weight.chunk(3, 0);
  const auto b = in_proj_bias.chunk(3, 0);
  const auto q = torch::linear(query, w[0], b[0]);
  const auto k = torch::linear(key, w[1], b[1]);
  const auto v = torch::linear(value, w[2], b[2]);
  auto out = attend(split_heads(q, num_heads_), split_heads(k, num_heads_), split_heads(v, num_heads_), blocked,
                    is_training() ? dropout_ : 0.0);
  out = out.transpose(1, 2).reshape({query.size(0), query.size(1), d});
  return out_proj(out);
}

}  // namespace libreyolo::sdk::detr

#pragma once
// Batch-first multi-head attention with torch.nn.MultiheadAttention's parameters and state-dict
// keys (in_proj_weight [3D, D], in_proj_bias [3D], out_proj.{weight,bias}) and init, computed
// with at::scaled_dot_product_attention (flash / memory-efficient kernels on CUDA, where
// LibTorch's own nn::MultiheadAttention runs the unfused bmm + softmax path and is not
// batch-first). Dropout on the attention weights in training only (LibreYOLO's DETRs use 0).

#include <torch/nn/module.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::sdk::detr {

class LIBREYOLO_SDK_API MultiheadAttentionImpl : public torch::nn::Module {
 public:
  // Throws std::invalid_argument unless embed_dim is a positive multiple of num_heads.
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads, double dropout = 0.0);

  // query [B, L, D], key and value [B, S, D]. blocked: optional [L, S] bool, true where a query
  // may NOT attend to a key (PyTorch's nn.MultiheadAttention convention). Returns [B, L, D].
  torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& key, const torch::Tensor& value,
                        const torch::Tensor& blocked = {});

  torch::Tensor in_proj_weight, in_proj_bias;
  sdk::Linear out_proj{nullptr};

 private:
  int64_t embed_dim_;
  int64_t num_heads_;
  double dropout_;
};
TORCH_MODULE(MultiheadAttention);

}  // namespace libreyolo::sdk::detr

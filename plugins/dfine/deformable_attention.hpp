#pragma once
// D-FINE's cross-attention (LibreYOLO's MSDeformableAttention in libreyolo/models/dfine/
// decoder.py): multi-scale deformable attention with a different number of sampling points per
// level and, unlike RT-DETR's (sdk::detr::MSDeformableAttention), no value or output
// projection: it samples the encoder memory itself. Sampling is the SDK's grid_sample core,
// called once per level (one softmax still spans every level's points, as in LibreYOLO).
//
// Keys: num_points_scale (buffer [sum(points)], 1 / points of the point's level: how far a
// point may move relative to the box), sampling_offsets.{weight,bias}, attention_weights.*.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "libreyolo/sdk/detr/ms_deform_attn.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::dfine {

class DeformableAttentionImpl : public torch::nn::Module {
 public:
  // embed_dim divisible by num_heads; one positive point count per level.
  DeformableAttentionImpl(int64_t embed_dim, int64_t num_heads, std::vector<int64_t> num_points,
                          double offset_scale = 0.5);

  // LibreYOLO's _reset_parameters: zero offset weights with a bias that puts head h's points on
  // the ray at angle 2 pi h / heads (scaled so the larger coordinate is 1), the k-th point of a
  // level k times as far; uniform attention (zero weights and bias).
  void reset_parameters();

  // query [B, Lq, D]; reference_points [B, Lq, 1, 4] (cx, cy, w, h in [0, 1]); value [B, Lv, D]
  // the flattened levels (Lv = sum of h * w). Returns [B, Lq, D].
  torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& reference_points, const torch::Tensor& value,
                        const sdk::detr::SpatialShapes& shapes);

  torch::Tensor num_points_scale;
  sdk::Linear sampling_offsets{nullptr}, attention_weights{nullptr};

 private:
  int64_t embed_dim_, num_heads_, total_points_;
  std::vector<int64_t> num_points_;
  double offset_scale_;
};
TORCH_MODULE(DeformableAttention);

}  // namespace libreyolo::dfine

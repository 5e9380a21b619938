#pragma once
// Multi-scale deformable attention (Deformable DETR), the cross-attention of the RT-DETR and
// D-FINE decoders: every query looks at a few learned points around its reference point on each
// feature level instead of at every pixel. The core is LibreYOLO's pure-PyTorch version
// (deformable_attention_core_func: one bilinear grid_sample per level, no custom kernel) and the
// module is LibreYOLO's MSDeformableAttention: same submodule names, initialisation and math, so
// its state-dict entries load one to one.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <array>
#include <cstdint>
#include <vector>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::sdk::detr {

using SpatialShapes = std::vector<std::array<int64_t, 2>>;  // (h, w) per level

// value [B, Lv, H, C] (Lv = sum of h * w over the levels, level by level, row-major),
// sampling_locations [B, Lq, H, L, P, 2] as (x, y) in [0, 1] of each level's image (points
// outside read zeros), attention_weights [B, Lq, H, L, P] -> [B, Lq, H * C]: per query and head,
// the weighted sum of the bilinearly sampled values (grid_sample, align_corners = false: location
// 0 is the left edge of the first pixel, so pixel centres sit at (i + 0.5) / w).
LIBREYOLO_SDK_API torch::Tensor ms_deform_attn_core(const torch::Tensor& value, const SpatialShapes& shapes,
                                                    const torch::Tensor& sampling_locations,
                                                    const torch::Tensor& attention_weights);

// The sampling of both decoders, with a point count per level (D-FINE's differ): value
// [B, Lv, H, C]; sampling_locations [B, Lq, H, T, 2] and attention_weights [B, Lq, H, T], T the
// sum of points_per_level, level by level -> [B, Lq, H * C]. Runs the fused CUDA kernel when the
// fused_kernels policy (sdk/fused_kernels.hpp) allows it and the inputs suit it, else the
// composed ops: ms_deform_attn_core once per level, summed level by level (D-FINE's math;
// MSDeformableAttention below keeps RT-DETR's, one core call over all levels). The first
// sampling of the process logs which one runs.
LIBREYOLO_SDK_API torch::Tensor deformable_sampling(const torch::Tensor& value, const SpatialShapes& shapes,
                                                    const std::vector<int64_t>& points_per_level,
                                                    const torch::Tensor& sampling_locations,
                                                    const torch::Tensor& attention_weights);

class LIBREYOLO_SDK_API MSDeformableAttentionImpl : public torch::nn::Module {
 public:
  // embed_dim must be divisible by num_heads; all counts positive.
  explicit MSDeformableAttentionImpl(int64_t embed_dim = 256, int64_t num_heads = 8, int64_t num_levels = 4,
                                     int64_t num_points = 4);

  // LibreYOLO's _reset_parameters: zero sampling-offset weights with a bias that puts head h's
  // points on the ray at angle 2 pi h / num_heads (scaled so the larger coordinate is 1) at
  // distances 1 .. num_points; uniform attention (zero weights and bias); Xavier-uniform
  // projections with zero bias.
  void reset_parameters();

  // query [B, Lq, D]; reference_points [B, Lq, L or 1, 2] (x, y) in [0, 1], offsets then count in
  // pixels of each level, or [B, Lq, L or 1, 4] (cx, cy, w, h), offsets then scale with the box
  // (offset / num_points * wh / 2); value [B, Lv, D] with Lv = sum of h * w; value_mask [B, Lv]
  // (bool or 0/1, optional): masked-out positions contribute zero. Returns [B, Lq, D].
  torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& reference_points,
                        const torch::Tensor& value, const SpatialShapes& shapes,
                        const torch::Tensor& value_mask = {});

  int64_t embed_dim() const { return embed_dim_; }
  int64_t num_heads() const { return num_heads_; }
  int64_t num_levels() const { return num_levels_; }
  int64_t num_points() const { return num_points_; }

  sdk::Linear sampling_offsets{nullptr}, attention_weights{nullptr}, value_proj{nullptr},
      output_proj{nullptr};

 private:
  torch::Tensor sampling_locations(const torch::Tensor& reference_points, const torch::Tensor& offsets,
                                   const SpatialShapes& shapes) const;
  void check_inputs(const torch::Tensor& query, const torch::Tensor& reference_points, const torch::Tensor& value,
                    const SpatialShapes& shapes, const torch::Tensor& value_mask) const;

  int64_t embed_dim_, num_heads_, num_levels_, num_points_;
};
TORCH_MODULE(MSDeformableAttention);

}  // namespace libreyolo::sdk::detr

#include "libreyolo/sdk/detr/ms_deform_attn.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "deform_sampling_fused.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/log.hpp"
#include "libreyolo/sdk/linear.hpp"
#include "../fused_choice_log.hpp"

namespace libreyolo::sdk::detr {
namespace {

int64_t total_positions(const SpatialShapes& shapes) {
  int64_t total = 0;
  for (const auto& [h, w] : shapes) {
    TORCH_CHECK(h > 0 && w > 0, "ms_deform_attn: every level needs a positive (h, w), got (", h, ", ", w, ")");
    total += h * w;
  }
  return total;
}

void check_core_inputs(const torch::Tensor& value, const SpatialShapes& shapes, const torch::Tensor& locations,
                       const torch::Tensor& weights) {
  TORCH_CHECK(value.dim() == 4, "ms_deform_attn_core: value must be [B, Lv, heads, C], got ", value.sizes());
  TORCH_CHECK(locations.dim() == 6 && locations.size(-1) == 2,
              "ms_deform_attn_core: sampling_locations must be [B, Lq, heads, levels, points, 2], got ",
              locations.sizes());
  TORCH_CHECK(weights.dim() == 5 && weights.sizes() == locations.sizes().slice(0, 5),
              "ms_deform_attn_core: attention_weights must be [B, Lq, heads, levels, points] like the locations ",
              locations.sizes(), ", got ", weights.sizes());
  TORCH_CHECK(locations.size(0) == value.size(0) && locations.size(2) == value.size(2),
              "ms_deform_attn_core: batch and head counts of sampling_locations ", locations.sizes(),
              " must match value ", value.sizes());
  TORCH_CHECK(static_cast<int64_t>(shapes.size()) == locations.size(3), "ms_deform_attn_core: ", shapes.size(),
              " spatial shapes for ", locations.size(3), " levels of sampling_locations: give one (h, w) per level");
  const auto positions = total_positions(shapes);
  TORCH_CHECK(positions == value.size(1), "ms_deform_attn_core: the spatial shapes cover ", positions,
              " positions but value has Lv = ", value.size(1), ": value must hold every level's h * w, in order");
}

// grid_sample as both cores call it: bilinear, zeros outside, corners not aligned.
torch::Tensor sample(const torch::Tensor& image, const torch::Tensor& grid) {
  return torch::nn::functional::grid_sample(
      image, grid,
      torch::nn::functional::GridSampleFuncOptions().mode(torch::kBilinear).padding_mode(torch::kZeros).align_corners(false));
}

// Level positions [start, start + h*w) of value [B, Lv, heads, C] as [B*heads, C, h, w]: every
// head's channels form one image.
torch::Tensor level_image(const torch::Tensor& value, int64_t start, int64_t h, int64_t w) {
  return value.narrow(1, start, h * w).flatten(2).permute({0, 2, 1}).reshape({value.size(0) * value.size(2), value.size(3), h, w});
}

}  // namespace

torch::Tensor ms_deform_attn_core(const torch::Tensor& value, const SpatialShapes& shapes,
                                  const torch::Tensor& sampling_locations, const torch::Tensor& attention_weights) {
  check_core_inputs(value, shapes, sampling_locations, attention_weights);
  const auto batch = value.size(0), heads = value.size(2), channels = value.size(3);
  const auto queries = sampling_locations.size(1), levels = sampling_locations.size(3);
  const auto points = sampling_locations.size(4);
  // grid_sample wants coordinates in [-1, 1].
  const auto grids = sampling_locations * 2 - 1;
  std::vector<torch::Tensor> sampled;
  sampled.reserve(static_cast<size_t>(levels));
  int64_t start = 0;
  for (int64_t level = 0; level < levels; ++level) {
    const auto [h, w] = shapes[static_cast<size_t>(level)];
    // [B, Lq, heads, P, 2] -> [B*heads, Lq, P, 2]
    const auto grid = grids.select(3, level).permute({0, 2, 1, 3, 4}).flatten(0, 1);
    sampled.push_back(sample(level_image(value, start, h, w), grid));  // [B*heads, C, Lq, P]
    start += h * w;
  }
  const auto weights =
      attention_weights.permute({0, 2, 1, 3, 4}).reshape({batch * heads, 1, queries, levels * points});
  const auto output = (torch::stack(sampled, -2).flatten(-2) * weights).sum(-1).reshape({batch, heads * channels, queries});
  return output.permute({0, 2, 1});
}

namespace {

// D-FINE's math as LibreYOLO writes it: each level's points sampled from that level's image, the
// samples of all levels side by side, one weighted sum over every point (so a point count per
// level costs one pass of the weighting, not one per level).
torch::Tensor per_level_sampling(const torch::Tensor& value, const SpatialShapes& shapes,
                                 const std::vector<int64_t>& points, const torch::Tensor& locations,
                                 const torch::Tensor& weights) {
  const auto batch = value.size(0), heads = value.size(2), channels = value.size(3);
  const auto queries = locations.size(1), total_points = locations.size(3);
  const auto grids = (locations * 2 - 1).permute({0, 2, 1, 3, 4}).flatten(0, 1);  // [B*heads, Lq, T, 2] in [-1, 1]
  std::vector<torch::Tensor> sampled;
  int64_t first_point = 0, first_position = 0;
  for (size_t level = 0; level < shapes.size(); ++level) {
    const auto [h, w] = shapes[level];
    sampled.push_back(sample(level_image(value, first_position, h, w), grids.narrow(2, first_point, points[level])));
    first_point += points[level];
    first_position += h * w;
  }
  const auto point_weights = weights.permute({0, 2, 1, 3}).reshape({batch * heads, 1, queries, total_points});
  const auto output = (torch::cat(sampled, -1) * point_weights).sum(-1).reshape({batch, heads * channels, queries});
  return output.permute({0, 2, 1});
}

// The fused_kernels policy and the inputs decide; the first decision of the process is logged.
bool fused_sampling_chosen(const torch::Tensor& value, const SpatialShapes& shapes,
                           const std::vector<int64_t>& points) {
  if (!fused_kernel_allowed("deform_sampling")) return false;
  const auto refusal = fused_sampling_refusal(value, shapes, points);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: deformable attention samples with the fused CUDA kernel",
                         "fused_kernels: deformable attention samples with composed PyTorch ops");
  return refusal.empty();
}

void check_sampling_inputs(const torch::Tensor& value, const SpatialShapes& shapes, const std::vector<int64_t>& points,
                           const torch::Tensor& locations, const torch::Tensor& weights) {
  TORCH_CHECK(!points.empty() && points.size() == shapes.size(), "deformable_sampling: give one point count per level (",
              shapes.size(), " levels, ", points.size(), " counts)");
  int64_t total = 0;
  for (const auto n : points) total += n;
  TORCH_CHECK(locations.dim() == 5 && locations.size(3) == total && locations.size(4) == 2,
              "deformable_sampling: sampling_locations must be [B, Lq, H, ", total, ", 2], got ", locations.sizes());
  TORCH_CHECK(weights.sizes() == locations.sizes().slice(0, 4), "deformable_sampling: attention_weights must be [B, Lq, H, ",
              total, "] like the locations, got ", weights.sizes());
  TORCH_CHECK(value.dim() == 4 && value.size(0) == locations.size(0) && value.size(1) == total_positions(shapes) &&
                  value.size(2) == locations.size(2),
              "deformable_sampling: value must be [B, Lv, H, C] with the locations' B and H and Lv = every level's "
              "h * w, got ", value.sizes(), " for locations ", locations.sizes());
}

}  // namespace

torch::Tensor deformable_sampling(const torch::Tensor& value, const SpatialShapes& shapes,
                                  const std::vector<int64_t>& points_per_level, const torch::Tensor& sampling_locations,
                                  const torch::Tensor& attention_weights) {
  check_sampling_inputs(value, shapes, points_per_level, sampling_locations, attention_weights);
  if (fused_sampling_chosen(value, shapes, points_per_level))
    return fused_sampling(value, shapes, points_per_level, sampling_locations, attention_weights);
  return per_level_sampling(value, shapes, points_per_level, sampling_locations, attention_weights);
}

MSDeformableAttentionImpl::MSDeformableAttentionImpl(int64_t embed_dim, int64_t num_heads, int64_t num_levels,
                                                     int64_t num_points)
    : embed_dim_(embed_dim), num_heads_(num_heads), num_levels_(num_levels), num_points_(num_points) {
  TORCH_CHECK(embed_dim > 0 && num_heads > 0 && num_levels > 0 && num_points > 0,
              "MSDeformableAttention: embed_dim, num_heads, num_levels and num_points must be positive, got ",
              embed_dim, ", ", num_heads, ", ", num_levels, ", ", num_points);
  TORCH_CHECK(embed_dim % num_heads == 0, "MSDeformableAttention: embed_dim ", embed_dim,
              " must be divisible by num_heads ", num_heads, " (every head gets embed_dim / num_heads channels)");
  const auto total_points = num_heads * num_levels * num_points;
  // Registration order is LibreYOLO's, so the state dict lists the same keys in the same order.
  sampling_offsets = register_module("sampling_offsets", sdk::Linear(embed_dim, total_points * 2));
  attention_weights = register_module("attention_weights", sdk::Linear(embed_dim, total_points));
  value_proj = register_module("value_proj", sdk::Linear(embed_dim, embed_dim));
  output_proj = register_module("output_proj", sdk::Linear(embed_dim, embed_dim));
  reset_parameters();
}

void MSDeformableAttentionImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  torch::nn::init::zeros_(sampling_offsets->weight);
  // Head h starts on the ray at angle 2 pi h / heads; dividing by the larger |coordinate| puts the
  // first point on the unit square's border, point p at p + 1 times that.
  const auto thetas = torch::arange(num_heads_, torch::kFloat32) * (2.0 * M_PI / static_cast<double>(num_heads_));
  auto grid = torch::stack({thetas.cos(), thetas.sin()}, -1);
  grid = grid / std::get<0>(grid.abs().max(-1, true));
  grid = grid.reshape({num_heads_, 1, 1, 2}).tile({1, num_levels_, num_points_, 1});
  grid = grid * torch::arange(1, num_points_ + 1, torch::kFloat32).reshape({1, 1, -1, 1});
  sampling_offsets->bias.copy_(grid.flatten());
  torch::nn::init::zeros_(attention_weights->weight);
  torch::nn::init::zeros_(attention_weights->bias);
  torch::nn::init::xavier_uniform_(value_proj->weight);
  torch::nn::init::zeros_(value_proj->bias);
  torch::nn::init::xavier_uniform_(output_proj->weight);
  torch::nn::init::zeros_(output_proj->bias);
}

void MSDeformableAttentionImpl::check_inputs(const torch::Tensor& query, const torch::Tensor& reference_points,
                                             const torch::Tensor& value, const SpatialShapes& shapes,
                                             const torch::Tensor& value_mask) const {
  TORCH_CHECK(query.dim() == 3 && query.size(2) == embed_dim_, "MSDeformableAttention: query must be [B, Lq, ",
              embed_dim_, "], got ", query.sizes());
  TORCH_CHECK(value.dim() == 3 && value.size(2) == embed_dim_ && value.size(0) == query.size(0),
              "MSDeformableAttention: value must be [B, Lv, ", embed_dim_, "] with the query's batch ", query.size(0),
              ", got ", value.sizes());
  TORCH_CHECK(static_cast<int64_t>(shapes.size()) == num_levels_, "MSDeformableAttention: built for ", num_levels_,
              " levels but given ", shapes.size(), " spatial shapes");
  TORCH_CHECK(reference_points.dim() == 4 && reference_points.size(0) == query.size(0) &&
                  reference_points.size(1) == query.size(1) &&
                  (reference_points.size(2) == num_levels_ || reference_points.size(2) == 1),
              "MSDeformableAttention: reference_points must be [B, Lq, ", num_levels_, " or 1, 2 or 4] for query ",
              query.sizes(), ", got ", reference_points.sizes());
  TORCH_CHECK(reference_points.size(3) == 2 || reference_points.size(3) == 4,
              "MSDeformableAttention: the last dimension of reference_points must be 2 (x, y) or 4 (cx, cy, w, h), got ",
              reference_points.size(3));
  TORCH_CHECK(!value_mask.defined() || value_mask.sizes() == value.sizes().slice(0, 2),
              "MSDeformableAttention: value_mask must be [B, Lv] = ", value.sizes().slice(0, 2), ", got ",
              value_mask.sizes());
}

torch::Tensor MSDeformableAttentionImpl::sampling_locations(const torch::Tensor& reference_points,
                                                            const torch::Tensor& offsets,
                                                            const SpatialShapes& shapes) const {
  // [B, Lq, L or 1, k] -> [B, Lq, 1, L or 1, 1, k], against offsets [B, Lq, heads, L, P, 2].
  const auto reference = reference_points.unsqueeze(2).unsqueeze(4);
  if (reference_points.size(3) == 4) {
    const auto centre = reference.narrow(-1, 0, 2), size = reference.narrow(-1, 2, 2);
    return centre + offsets / static_cast<double>(num_points_) * size * 0.5;
  }
  // Offsets count in pixels of each level: divide by its (w, h). Filled on the device, one level
  // at a time, instead of copied from host memory, which would wait for the device's queue.
  auto normaliser = torch::empty({num_levels_, 2}, offsets.options());
  {
    torch::NoGradGuard no_grad;
    for (int64_t level = 0; level < num_levels_; ++level) {
      const auto [h, w] = shapes[static_cast<size_t>(level)];
      normaliser[level][0].fill_(static_cast<double>(w));
      normaliser[level][1].fill_(static_cast<double>(h));
    }
  }
  return reference + offsets / normaliser.reshape({1, 1, 1, num_levels_, 1, 2});
}

torch::Tensor MSDeformableAttentionImpl::forward(const torch::Tensor& query, const torch::Tensor& reference_points,
                                                 const torch::Tensor& value, const SpatialShapes& shapes,
                                                 const torch::Tensor& value_mask) {
  check_inputs(query, reference_points, value, shapes, value_mask);
  const auto batch = query.size(0), queries = query.size(1), positions = value.size(1);
  auto projected = value_proj(value);
  if (value_mask.defined()) projected = projected * value_mask.to(projected.dtype()).unsqueeze(-1);
  projected = projected.reshape({batch, positions, num_heads_, embed_dim_ / num_heads_});
  const auto offsets =
      sampling_offsets(query).reshape({batch, queries, num_heads_, num_levels_, num_points_, 2});
  // One softmax over all levels and points of a head.
  const auto weights = torch::softmax(attention_weights(query).reshape({batch, queries, num_heads_, -1}), -1)
                           .reshape({batch, queries, num_heads_, num_levels_, num_points_});
  const auto locations = sampling_locations(reference_points, offsets, shapes);
  const std::vector<int64_t> points(static_cast<size_t>(num_levels_), num_points_);
  if (fused_sampling_chosen(projected, shapes, points))  // [B, Lq, H, L, P, ...] -> [B, Lq, H, L * P, ...]
    return output_proj(fused_sampling(projected, shapes, points, locations.flatten(3, 4), weights.flatten(3, 4)));
  return output_proj(ms_deform_attn_core(projected, shapes, locations, weights));
}

}  // namespace libreyolo::sdk::detr

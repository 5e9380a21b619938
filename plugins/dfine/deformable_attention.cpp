#include "deformable_attention.hpp"

#include <torch/torch.h>

#include <cmath>
#include <numeric>

#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::dfine {

DeformableAttentionImpl::DeformableAttentionImpl(int64_t embed_dim, int64_t num_heads, std::vector<int64_t> num_points,
                                                 double offset_scale)
    : embed_dim_(embed_dim),
      num_heads_(num_heads),
      total_points_(std::accumulate(num_points.begin(), num_points.end(), int64_t{0})),
      num_points_(std::move(num_points)),
      offset_scale_(offset_scale) {
  TORCH_CHECK(embed_dim > 0 && num_heads > 0 && embed_dim % num_heads == 0, "D-FINE deformable attention: embed_dim ",
              embed_dim, " must be a positive multiple of num_heads ", num_heads);
  TORCH_CHECK(!num_points_.empty(), "D-FINE deformable attention: give one point count per level");
  std::vector<float> scale;
  for (const auto n : num_points_) {
    TORCH_CHECK(n > 0, "D-FINE deformable attention: point counts must be positive, got ", n);
    scale.insert(scale.end(), static_cast<size_t>(n), 1.0f / static_cast<float>(n));
  }
  // Registration order = LibreYOLO's state-dict order (own buffers before children).
  num_points_scale = register_buffer("num_points_scale", torch::tensor(scale, torch::kFloat32));
  sampling_offsets = register_module("sampling_offsets", sdk::Linear(embed_dim, num_heads * total_points_ * 2));
  attention_weights = register_module("attention_weights", sdk::Linear(embed_dim, num_heads * total_points_));
  reset_parameters();
}

void DeformableAttentionImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  torch::nn::init::zeros_(sampling_offsets->weight);
  const auto thetas = torch::arange(num_heads_, torch::kFloat32) * (2.0 * M_PI / static_cast<double>(num_heads_));
  auto grid = torch::stack({thetas.cos(), thetas.sin()}, -1);
  grid = grid / std::get<0>(grid.abs().max(-1, true));
  grid = grid.reshape({num_heads_, 1, 2}).tile({1, total_points_, 1});
  std::vector<torch::Tensor> distances;
  for (const auto n : num_points_) distances.push_back(torch::arange(1, n + 1, torch::kFloat32));
  grid = grid * torch::cat(distances).reshape({1, -1, 1});
  sampling_offsets->bias.copy_(grid.flatten());
  torch::nn::init::zeros_(attention_weights->weight);
  torch::nn::init::zeros_(attention_weights->bias);
}

torch::Tensor DeformableAttentionImpl::forward(const torch::Tensor& query, const torch::Tensor& reference_points,
                                               const torch::Tensor& value, const sdk::detr::SpatialShapes& shapes) {
  TORCH_CHECK(query.dim() == 3 && query.size(2) == embed_dim_, "D-FINE deformable attention: query must be [B, Lq, ",
              embed_dim_, "], got ", query.sizes());
  TORCH_CHECK(reference_points.dim() == 4 && reference_points.size(2) == 1 && reference_points.size(3) == 4,
              "D-FINE deformable attention: reference_points must be [B, Lq, 1, 4] boxes, got ", reference_points.sizes());
  TORCH_CHECK(shapes.size() == num_points_.size(), "D-FINE deformable attention: built for ", num_points_.size(),
              " levels, given ", shapes.size());
  int64_t positions = 0;
  for (const auto& [h, w] : shapes) positions += h * w;
  TORCH_CHECK(value.dim() == 3 && value.size(0) == query.size(0) && value.size(1) == positions &&
                  value.size(2) == embed_dim_,
              "D-FINE deformable attention: value must be [B, ", positions, ", ", embed_dim_,
              "] (every level's h * w, in order), got ", value.sizes());
  const auto batch = query.size(0), queries = query.size(1);
  const auto offsets = sampling_offsets(query).reshape({batch, queries, num_heads_, total_points_, 2});
  // One softmax over every level's points of a head.
  const auto weights = torch::softmax(attention_weights(query).reshape({batch, queries, num_heads_, total_points_}), -1);
  // A point moves by offset / points-of-its-level * box size * offset_scale from the box centre.
  const auto box = reference_points.unsqueeze(2);  // [B, Lq, 1, 1, 4]
  const auto scale = num_points_scale.to(query.scalar_type()).unsqueeze(-1);
  const auto locations =
      box.narrow(-1, 0, 2) + offsets * scale * box.narrow(-1, 2, 2) * offset_scale_;  // [B, Lq, H, P, 2]
  const auto heads_value = value.reshape({batch, value.size(1), num_heads_, embed_dim_ / num_heads_});
  return sdk::detr::deformable_sampling(heads_value, shapes, num_points_, locations, weights);
}

}  // namespace libreyolo::dfine

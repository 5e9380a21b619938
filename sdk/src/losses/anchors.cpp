#include "libreyolo/sdk/losses/anchors.hpp"

#include <torch/torch.h>

#include "libreyolo/sdk/prediction_rows.hpp"

namespace libreyolo::sdk::losses {

AnchorPoints make_anchors(const std::vector<std::pair<int64_t, int64_t>>& level_sizes,
                          const std::vector<int64_t>& strides, const torch::Device& device, double offset) {
  TORCH_CHECK(level_sizes.size() == strides.size() && !strides.empty(), "make_anchors: ", level_sizes.size(),
              " levels but ", strides.size(), " strides");
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  std::vector<torch::Tensor> points, level_strides;
  for (size_t l = 0; l < strides.size(); ++l) {
    const auto [height, width] = level_sizes[l];
    const auto stride = static_cast<double>(strides[l]);
    const auto ys = (torch::arange(height, options) + offset) * stride;
    const auto xs = (torch::arange(width, options) + offset) * stride;
    const auto grid = torch::meshgrid({ys, xs}, "ij");
    points.push_back(torch::stack({grid[1].flatten(), grid[0].flatten()}, 1));
    level_strides.push_back(torch::full({height * width, 1}, stride, options));
  }
  return {torch::cat(points, 0), torch::cat(level_strides, 0)};
}

AnchorPoints make_anchors(const std::vector<torch::Tensor>& features, const std::vector<int64_t>& strides,
                          double offset) {
  TORCH_CHECK(!features.empty(), "make_anchors: no feature maps");
  std::vector<std::pair<int64_t, int64_t>> sizes;
  for (const auto& f : features) {
    TORCH_CHECK(f.dim() == 4, "make_anchors: feature maps must be [B, C, H, W], got ", f.sizes());
    sizes.emplace_back(f.size(2), f.size(3));
  }
  return make_anchors(sizes, strides, features.front().device(), offset);
}

torch::Tensor anchor_rows(const std::vector<torch::Tensor>& levels, torch::ScalarType dtype) {
  TORCH_CHECK(!levels.empty(), "anchor_rows: no output levels");
  // Levels that are views of prediction rows (prediction_levels' fused path) are those rows.
  if (const auto rows = rows_behind_levels(levels); rows.defined()) return rows.to(dtype);
  std::vector<torch::Tensor> rows;
  for (const auto& level : levels) {
    TORCH_CHECK(level.dim() == 4 && level.size(1) == levels.front().size(1),
                "anchor_rows: every level must be [B, C, H, W] with the first level's C; got ", level.sizes(),
                " after ", levels.front().sizes());
    rows.push_back(level.flatten(2).transpose(1, 2));  // [B, H*W, C]
  }
  return torch::cat(rows, 1).to(dtype);
}

}  // namespace libreyolo::sdk::losses

#include "libreyolo/sdk/detr/query_anchors.hpp"

#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "libreyolo/sdk/user_error.hpp"

namespace libreyolo::sdk::detr {

EncoderAnchors make_encoder_anchors(const SpatialShapes& shapes, const torch::TensorOptions& options,
                                    double grid_size, double eps) {
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat32);
  std::vector<torch::Tensor> levels;
  for (size_t level = 0; level < shapes.size(); ++level) {
    const auto [h, w] = shapes[level];
    const auto ys = (torch::arange(h, f32) + 0.5) / static_cast<double>(h);
    const auto xs = (torch::arange(w, f32) + 0.5) / static_cast<double>(w);
    const auto grid = torch::meshgrid({ys, xs}, "ij");
    const auto wh = torch::full({h * w, 2}, grid_size * std::pow(2.0, static_cast<double>(level)), f32);
    levels.push_back(torch::cat({torch::stack({grid[1].reshape(-1), grid[0].reshape(-1)}, 1), wh}, 1));
  }
  auto anchors = torch::cat(levels, 0).unsqueeze(0);
  const auto valid = ((anchors > eps) & (anchors < 1.0 - eps)).all(-1, /*keepdim=*/true);
  auto logits = torch::log(anchors / (1.0 - anchors));
  logits = torch::where(valid, logits, torch::full({}, INFINITY, f32));
  return {logits.to(options), valid.to(options.device())};
}

torch::Tensor xywh_scale(int64_t height, int64_t width, const torch::TensorOptions& options) {
  auto scale = torch::full({2, 2}, static_cast<double>(width), options);
  scale.select(1, 1).fill_(static_cast<double>(height));
  return scale.view({4});
}

void require_query_positions(const SpatialShapes& shapes, int64_t queries) {
  int64_t positions = 0;
  std::string levels;
  for (const auto& [h, w] : shapes) {
    positions += h * w;
    levels += (levels.empty() ? "" : " + ") + std::to_string(h) + " x " + std::to_string(w);
  }
  if (positions >= queries) return;
  // Positions grow with the square of the side: this factor on each side holds the queries.
  char factor[32];
  std::snprintf(factor, sizeof factor, "%.2f", std::sqrt(static_cast<double>(queries) / std::max<int64_t>(positions, 1)));
  throw UserError("the input is too small for this model",
                  "its encoder has " + std::to_string(positions) + " positions (" + levels + "), fewer than the " +
                      std::to_string(queries) + " queries it selects",
                  "use an input at least " + std::string(factor) +
                      "x larger on each side (imgsz=; with multi_scale=true the smallest size drawn counts)");
}

}  // namespace libreyolo::sdk::detr

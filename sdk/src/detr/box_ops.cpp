#include "libreyolo/sdk/detr/box_ops.hpp"

#include <torch/torch.h>

namespace libreyolo::sdk::detr {

torch::Tensor inverse_sigmoid(const torch::Tensor& x, double eps) {
  TORCH_CHECK(eps > 0.0 && eps < 0.5, "inverse_sigmoid: eps must lie in (0, 0.5) to keep the logarithm finite, got ",
              eps);
  const auto clipped = x.clamp(0.0, 1.0);
  return torch::log(clipped.clamp_min(eps) / (1.0 - clipped).clamp_min(eps));
}

torch::Tensor generalized_box_iou(const torch::Tensor& a, const torch::Tensor& b) {
  TORCH_CHECK(a.size(-1) == 4 && b.size(-1) == 4,
              "detr::generalized_box_iou: boxes must be [..., 4] (x1, y1, x2, y2), got ", a.sizes(), " and ", b.sizes());
  constexpr double eps = 1e-6;  // LibreYOLO's, added to both denominators
  const auto a_low = a.narrow(-1, 0, 2), a_high = a.narrow(-1, 2, 2);
  const auto b_low = b.narrow(-1, 0, 2), b_high = b.narrow(-1, 2, 2);
  const auto a_size = (a_high - a_low).unbind(-1), b_size = (b_high - b_low).unbind(-1);
  const auto overlap = (torch::min(a_high, b_high) - torch::max(a_low, b_low)).clamp_min(0).unbind(-1);
  const auto inter = overlap[0] * overlap[1];
  // The same association order as LibreYOLO (area_a + area_b - inter), so float results agree.
  const auto uni = a_size[0] * a_size[1] + b_size[0] * b_size[1] - inter;
  const auto iou = inter / (uni + eps);
  const auto enclosing = (torch::max(a_high, b_high) - torch::min(a_low, b_low)).clamp_min(0).unbind(-1);
  const auto area = enclosing[0] * enclosing[1];
  return iou - (area - uni) / (area + eps);
}

torch::Tensor pairwise_generalized_box_iou(const torch::Tensor& a, const torch::Tensor& b) {
  TORCH_CHECK(a.dim() >= 2 && b.dim() >= 2, "detr::pairwise_generalized_box_iou: boxes must be [..., N, 4], got ",
              a.sizes(), " and ", b.sizes());
  return generalized_box_iou(a.unsqueeze(-2), b.unsqueeze(-3));
}

}  // namespace libreyolo::sdk::detr

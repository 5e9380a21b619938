#include "libreyolo/sdk/detr/dfine_box_ops.hpp"

#include <torch/torch.h>


namespace libreyolo::sdk::detr {
namespace {

void check_boxes(const torch::Tensor& a, const torch::Tensor& b, const char* function) {
  TORCH_CHECK(a.size(-1) == 4 && b.size(-1) == 4, function, ": boxes must be [..., 4] (x1, y1, x2, y2), got ",
              a.sizes(), " and ", b.sizes());
}

struct Overlap {
  torch::Tensor inter, uni;
};

// The intersection and union, in LibreYOLO's association order (area_a + area_b - inter) so
// that float results agree with it to the last bit or two.
Overlap overlap(const torch::Tensor& a, const torch::Tensor& b) {
  const auto a_low = a.narrow(-1, 0, 2), a_high = a.narrow(-1, 2, 2);
  const auto b_low = b.narrow(-1, 0, 2), b_high = b.narrow(-1, 2, 2);
  const auto a_size = (a_high - a_low).unbind(-1), b_size = (b_high - b_low).unbind(-1);
  const auto wh = (torch::min(a_high, b_high) - torch::max(a_low, b_low)).clamp_min(0).unbind(-1);
  const auto inter = wh[0] * wh[1];
  return {inter, a_size[0] * a_size[1] + b_size[0] * b_size[1] - inter};
}

}  // namespace

torch::Tensor dfine_xywh_to_xyxy(const torch::Tensor& boxes) {
  TORCH_CHECK(boxes.size(-1) == 4, "dfine_xywh_to_xyxy: boxes must be [..., 4] (cx, cy, w, h), got ", boxes.sizes());
  const auto c = boxes.unbind(-1);
  const auto half_w = 0.5 * c[2].clamp_min(0.0), half_h = 0.5 * c[3].clamp_min(0.0);
  return torch::stack({c[0] - half_w, c[1] - half_h, c[0] + half_w, c[1] + half_h}, -1);
}

torch::Tensor dfine_box_iou(const torch::Tensor& a, const torch::Tensor& b) {
  check_boxes(a, b, "dfine_box_iou");
  const auto o = overlap(a, b);
  return o.inter / o.uni;
}

torch::Tensor dfine_generalized_box_iou(const torch::Tensor& a, const torch::Tensor& b) {
  check_boxes(a, b, "dfine_generalized_box_iou");
  const auto o = overlap(a, b);
  const auto a_low = a.narrow(-1, 0, 2), a_high = a.narrow(-1, 2, 2);
  const auto b_low = b.narrow(-1, 0, 2), b_high = b.narrow(-1, 2, 2);
  const auto enclosing = (torch::max(a_high, b_high) - torch::min(a_low, b_low)).clamp_min(0).unbind(-1);
  const auto area = enclosing[0] * enclosing[1];
  return o.inter / o.uni - (area - o.uni) / area;
}

torch::Tensor dfine_pairwise_generalized_box_iou(const torch::Tensor& a, const torch::Tensor& b) {
  TORCH_CHECK(a.dim() >= 2 && b.dim() >= 2, "dfine_pairwise_generalized_box_iou: boxes must be [..., N, 4], got ",
              a.sizes(), " and ", b.sizes());
  return dfine_generalized_box_iou(a.unsqueeze(-2), b.unsqueeze(-3));
}

}  // namespace libreyolo::sdk::detr

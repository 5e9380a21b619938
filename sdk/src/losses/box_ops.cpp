#include "libreyolo/sdk/losses/box_ops.hpp"

#include <torch/torch.h>

#include <cmath>

namespace libreyolo::sdk::losses {

torch::Tensor xywh_to_xyxy(const torch::Tensor& boxes) {
  const auto centre = boxes.narrow(-1, 0, 2);
  const auto half = boxes.narrow(-1, 2, 2) * 0.5;
  return torch::cat({centre - half, centre + half}, -1);
}

torch::Tensor xyxy_to_xywh(const torch::Tensor& boxes) {
  const auto low = boxes.narrow(-1, 0, 2);
  const auto high = boxes.narrow(-1, 2, 2);
  return torch::cat({(low + high) * 0.5, high - low}, -1);
}

torch::Tensor box_iou(const torch::Tensor& a_in, const torch::Tensor& b_in, IoUKind kind, double eps) {
  TORCH_CHECK(a_in.size(-1) == 4 && b_in.size(-1) == 4, "box_iou: boxes must be [..., 4] (x1, y1, x2, y2), got ",
              a_in.sizes(), " and ", b_in.sizes());
  const auto a = a_in.to(torch::kFloat32);
  const auto b = b_in.to(torch::kFloat32);
  // Corners and sizes as (x, y) pairs: each step below covers both axes in one operation. The
  // losses run eagerly, one host launch per operation and per backward node, so this halves
  // what the GPU may wait for; the values are those of the axis-by-axis formulas (a sum of two
  // squares, or a product of two, rounds the same either way). unbind, not select or prod:
  // its backward is one stack, and prod's backward reads a zero count back to the host.
  const auto a_low = a.narrow(-1, 0, 2), a_high = a.narrow(-1, 2, 2);
  const auto b_low = b.narrow(-1, 0, 2), b_high = b.narrow(-1, 2, 2);
  const auto a_size = (a_high - a_low).unbind(-1), b_size = (b_high - b_low).unbind(-1);  // {w, h}
  const auto overlap = (torch::min(a_high, b_high) - torch::max(a_low, b_low)).clamp_min(0).unbind(-1);
  const auto inter = overlap[0] * overlap[1];
  const auto uni = a_size[0] * a_size[1] + b_size[0] * b_size[1] - inter;
  const auto iou = inter / (uni + eps);
  if (kind == IoUKind::iou) return iou;
  // Smallest enclosing box: {width, height}.
  const auto enclosing = torch::max(a_high, b_high) - torch::min(a_low, b_low);
  if (kind == IoUKind::giou) {
    const auto sides = enclosing.unbind(-1);
    const auto area = sides[0] * sides[1] + eps;
    return iou - (area - uni) / area;
  }
  const auto diagonal = enclosing.pow(2).sum(-1) + eps;
  const auto centre_distance = ((a_low + a_high) - (b_low + b_high)).pow(2).sum(-1) * 0.25;
  const auto diou = iou - centre_distance / diagonal;
  if (kind == IoUKind::diou) return diou;
  const double four_over_pi2 = 4.0 / (M_PI * M_PI);
  const auto v = (torch::atan(a_size[0] / (a_size[1] + eps)) - torch::atan(b_size[0] / (b_size[1] + eps))).pow(2) *
                 four_over_pi2;
  torch::Tensor alpha;
  {
    torch::NoGradGuard no_grad;
    alpha = v / (v - iou + (1.0 + eps));
  }
  return diou - alpha.detach() * v;
}

torch::Tensor pairwise_box_iou(const torch::Tensor& a, const torch::Tensor& b, IoUKind kind, double eps) {
  TORCH_CHECK(a.dim() >= 2 && b.dim() >= 2, "pairwise_box_iou: boxes must be [..., N, 4], got ", a.sizes(),
              " and ", b.sizes());
  return box_iou(a.unsqueeze(-2), b.unsqueeze(-3), kind, eps);
}

torch::Tensor giou_aligned(const torch::Tensor& pred_in, const torch::Tensor& target_in, double eps) {
  TORCH_CHECK(pred_in.size(-1) == 4 && target_in.size(-1) == 4,
              "giou_aligned: boxes must be [..., 4] (x1, y1, x2, y2), got ", pred_in.sizes(), " and ",
              target_in.sizes());
  const auto pred = pred_in.to(torch::kFloat32);
  const auto target = target_in.to(torch::kFloat32);
  const auto p_low = pred.narrow(-1, 0, 2), p_high = pred.narrow(-1, 2, 2);
  const auto t_low = target.narrow(-1, 0, 2), t_high = target.narrow(-1, 2, 2);
  // Each quantity as an (x, y) pair, unbound for the product (see box_iou for why).
  const auto area = [](const torch::Tensor& sides) {
    const auto wh = sides.clamp_min(0).unbind(-1);
    return wh[0] * wh[1];
  };
  const auto inter = area(torch::min(p_high, t_high) - torch::max(p_low, t_low));
  const auto uni = area(p_high - p_low) + area(t_high - t_low) - inter;
  const auto enclosing = area(torch::max(p_high, t_high) - torch::min(p_low, t_low));
  const auto iou = inter / uni.clamp_min(eps);
  return iou - (enclosing - uni) / enclosing.clamp_min(eps);
}

torch::Tensor giou_loss(const torch::Tensor& pred, const torch::Tensor& target) {
  return 1.0 - giou_aligned(pred, target);
}

}  // namespace libreyolo::sdk::losses

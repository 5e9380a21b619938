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
  const auto ax1 = a.select(-1, 0), ay1 = a.select(-1, 1), ax2 = a.select(-1, 2), ay2 = a.select(-1, 3);
  const auto bx1 = b.select(-1, 0), by1 = b.select(-1, 1), bx2 = b.select(-1, 2), by2 = b.select(-1, 3);
  const auto aw = ax2 - ax1, ah = ay2 - ay1, bw = bx2 - bx1, bh = by2 - by1;

  const auto inter = (torch::min(ax2, bx2) - torch::max(ax1, bx1)).clamp_min(0) *
                     (torch::min(ay2, by2) - torch::max(ay1, by1)).clamp_min(0);
  const auto uni = aw * ah + bw * bh - inter;
  const auto iou = inter / (uni + eps);
  if (kind == IoUKind::iou) return iou;

  // Smallest enclosing box.
  const auto cw = torch::max(ax2, bx2) - torch::min(ax1, bx1);
  const auto ch = torch::max(ay2, by2) - torch::min(ay1, by1);
  if (kind == IoUKind::giou) {
    const auto enclosing = cw * ch + eps;
    return iou - (enclosing - uni) / enclosing;
  }

  const auto diagonal = cw.pow(2) + ch.pow(2) + eps;
  const auto centre_distance = ((ax1 + ax2) - (bx1 + bx2)).pow(2) * 0.25 + ((ay1 + ay2) - (by1 + by2)).pow(2) * 0.25;
  const auto diou = iou - centre_distance / diagonal;
  if (kind == IoUKind::diou) return diou;

  const double four_over_pi2 = 4.0 / (M_PI * M_PI);
  const auto v = (torch::atan(aw / (ah + eps)) - torch::atan(bw / (bh + eps))).pow(2) * four_over_pi2;
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

}  // namespace libreyolo::sdk::losses

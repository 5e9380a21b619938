#include "simota.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <limits>

namespace libreyolo::families::yolox {

namespace {

// (low, high) edges of boxes along one axis: centre -/+ size / 2, as LibreYOLO computes them.
std::pair<torch::Tensor, torch::Tensor> edges(const torch::Tensor& boxes, int64_t axis) {
  const auto centre = boxes.select(-1, axis), half = boxes.select(-1, axis + 2) / 2;
  return {centre - half, centre + half};
}

}  // namespace

torch::Tensor pairwise_iou_cxcywh(const torch::Tensor& a, const torch::Tensor& b) {
  const auto [ax1, ax2] = edges(a, 0);
  const auto [ay1, ay2] = edges(a, 1);
  const auto [bx1, bx2] = edges(b, 0);
  const auto [by1, by2] = edges(b, 1);
  // [B, M, 1] against [B, 1, A]; the x and y extents are kept apart to stay at [B, M, A].
  const auto left = torch::max(ax1.unsqueeze(2), bx1.unsqueeze(1));
  const auto right = torch::min(ax2.unsqueeze(2), bx2.unsqueeze(1));
  const auto top = torch::max(ay1.unsqueeze(2), by1.unsqueeze(1));
  const auto bottom = torch::min(ay2.unsqueeze(2), by2.unsqueeze(1));
  const auto overlaps = torch::logical_and(left < right, top < bottom).to(a.scalar_type());
  const auto intersection = (right - left) * (bottom - top) * overlaps;
  const auto area_a = (a.select(-1, 2) * a.select(-1, 3)).unsqueeze(2);
  const auto area_b = (b.select(-1, 2) * b.select(-1, 3)).unsqueeze(1);
  return intersection / (area_a + area_b - intersection);
}

SimOtaAssignment simota_assign(const torch::Tensor& pred_boxes_in, const torch::Tensor& pred_scores_in,
                               const torch::Tensor& grid_in, const torch::Tensor& strides_in,
                               const torch::Tensor& gt_boxes_in, const torch::Tensor& gt_labels,
                               const torch::Tensor& gt_valid, const SimOtaOptions& options) {
  torch::NoGradGuard no_grad;
  const auto pred_boxes = pred_boxes_in.detach().to(torch::kFloat32);
  const auto pred_scores = pred_scores_in.detach().to(torch::kFloat32);
  const auto gt_boxes = gt_boxes_in.detach().to(torch::kFloat32);
  const int64_t batch = pred_boxes.size(0), anchors = pred_boxes.size(1);
  const int64_t rows = gt_boxes.size(1), classes = pred_scores.size(2);
  TORCH_CHECK(pred_boxes.dim() == 3 && pred_boxes.size(2) == 4, "simota: pred_boxes must be [B, A, 4]");
  TORCH_CHECK(pred_scores.dim() == 3 && pred_scores.size(0) == batch && pred_scores.size(1) == anchors,
              "simota: pred_scores must be [B, A, C]");
  TORCH_CHECK(gt_boxes.dim() == 3 && gt_boxes.size(0) == batch && gt_boxes.size(2) == 4,
              "simota: gt_boxes must be [B, M, 4]");
  TORCH_CHECK(gt_valid.sizes() == torch::IntArrayRef({batch, rows}), "simota: gt_valid must be [B, M]");
  TORCH_CHECK(grid_in.size(0) == anchors && strides_in.numel() == anchors, "simota: grid/strides must have A rows");

  const auto options_f = pred_boxes.options();
  const auto inf = std::numeric_limits<float>::infinity();
  const auto valid = gt_valid.to(torch::kBool);
  const auto strides = strides_in.to(options_f).reshape({1, 1, anchors});
  const auto grid = grid_in.to(options_f);

  // 1. Centre prior.
  const auto centre_x = ((grid.select(1, 0).reshape({1, 1, anchors}) + 0.5) * strides);
  const auto centre_y = ((grid.select(1, 1).reshape({1, 1, anchors}) + 0.5) * strides);
  const auto radius = strides * options.center_radius;
  const auto gx = gt_boxes.select(2, 0).unsqueeze(2), gy = gt_boxes.select(2, 1).unsqueeze(2);  // [B, M, 1]
  auto in_centre = (centre_x - (gx - radius)) > 0;
  in_centre = torch::logical_and(in_centre, ((gx + radius) - centre_x) > 0);
  in_centre = torch::logical_and(in_centre, (centre_y - (gy - radius)) > 0);
  in_centre = torch::logical_and(in_centre, ((gy + radius) - centre_y) > 0);
  in_centre = torch::logical_and(in_centre, valid.unsqueeze(2));  // [B, M, A]
  const auto candidates = in_centre.any(1);                        // [B, A]
  const auto pair_valid = torch::logical_and(valid.unsqueeze(2), candidates.unsqueeze(1));  // [B, M, A]

  // 2. Cost. The class term sum_c BCE(p_c, onehot_c) is split into the all-negative sum plus the
  // correction at the gt's class, so no [B, M, A, C] tensor is ever formed.
  const auto zero = torch::zeros({}, options_f);
  const auto ious = torch::where(pair_valid, pairwise_iou_cxcywh(gt_boxes, pred_boxes), zero);
  const auto iou_cost = -torch::log(ious + 1e-8);
  const auto negative = torch::binary_cross_entropy(pred_scores, torch::zeros_like(pred_scores), {}, at::Reduction::None);
  const auto positive = torch::binary_cross_entropy(pred_scores, torch::ones_like(pred_scores), {}, at::Reduction::None);
  const auto labels = gt_labels.to(torch::kInt64).clamp(0, classes - 1);  // [B, M]
  const auto correction = (positive - negative).transpose(1, 2).gather(1, labels.unsqueeze(2).expand({batch, rows, anchors}));
  const auto cls_cost = negative.sum(2).unsqueeze(1) + correction;  // [B, M, A]
  auto cost = cls_cost + options.iou_weight * iou_cost + options.outside_center_cost * in_centre.logical_not().to(options_f);
  cost = torch::where(pair_valid, cost, torch::full({}, inf, options_f));

  // 3. Dynamic k: padding rows take none; non-candidate anchors contribute IoU 0, which changes
  // no sum (LibreYOLO sums the top min(10, candidates) IoUs).
  const int64_t topk = std::min(options.candidate_topk, anchors);
  const auto k_options = torch::TensorOptions().dtype(torch::kInt64).device(pred_boxes.device());
  const auto dynamic_k = torch::where(valid, std::get<0>(ious.topk(topk, 2)).sum(2).to(torch::kInt32).clamp_min(1).to(torch::kInt64),
                                      torch::zeros({}, k_options));

  // 4. Each gt's k lowest costs; k <= topk because IoUs are at most 1. A selection of infinite
  // cost (an image whose gts have no candidate at all) is dropped.
  const auto [lowest_cost, lowest_index] = cost.topk(topk, 2, /*largest=*/false, /*sorted=*/true);
  const auto rank = torch::arange(topk, dynamic_k.options()).reshape({1, 1, topk});
  const auto take = torch::logical_and(rank < dynamic_k.unsqueeze(2), torch::isfinite(lowest_cost));
  auto matching = torch::zeros({batch, rows, anchors}, options_f).scatter_(2, lowest_index, take.to(options_f));

  // 5. Conflicts: the lowest-cost gt wins.
  const auto takers = matching.sum(1);  // [B, A]
  const auto best_gt = cost.argmin(1);  // [B, A]
  const auto best_onehot = (torch::arange(rows, best_gt.options()).reshape({1, rows, 1}) == best_gt.unsqueeze(1)).to(options_f);
  matching = torch::where((takers > 1).unsqueeze(1), best_onehot, matching);

  const auto foreground = takers > 0;
  SimOtaAssignment out;
  out.foreground = foreground;
  out.gt_index = torch::where(foreground, matching.argmax(1), torch::zeros({}, best_gt.options()));
  out.iou = (matching * ious).sum(1);
  out.dynamic_k = dynamic_k;
  out.candidates = candidates;
  return out;
}

}  // namespace libreyolo::families::yolox

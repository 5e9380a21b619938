// simota_cost: SimOTA's centre prior, IoU and matching cost as composed PyTorch ops, and the choice
// of the fused kernel (simota_cost_fused.hpp) under the fused_kernels policy.
#include "libreyolo/sdk/losses/simota_cost.hpp"

#include <torch/torch.h>

#include <limits>
#include <mutex>
#include <utility>

#include "../fused_choice_log.hpp"
#include "fused_input_checks.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "simota_cost_fused.hpp"
#include "simota_cost_shape.hpp"

namespace libreyolo::sdk::losses {
namespace {

// (low, high) edges of boxes along one axis: centre -/+ size / 2, as LibreYOLO computes them.
std::pair<torch::Tensor, torch::Tensor> edges(const torch::Tensor& boxes, int64_t axis) {
  const auto centre = boxes.select(-1, axis), half = boxes.select(-1, axis + 2) / 2;
  return {centre - half, centre + half};
}

// [B, M, A]: the anchor's centre strictly inside the gt's centre square, on real rows only.
torch::Tensor centre_prior(const SimOtaCostInputs& in, const SimOtaCostOptions& options) {
  const int64_t anchors = in.grid.size(0);
  const auto strides = in.strides.reshape({1, 1, anchors});
  const auto centre_x = (in.grid.select(1, 0).reshape({1, 1, anchors}) + 0.5) * strides;
  const auto centre_y = (in.grid.select(1, 1).reshape({1, 1, anchors}) + 0.5) * strides;
  const auto radius = strides * options.center_radius;
  const auto gx = in.gt_boxes.select(2, 0).unsqueeze(2), gy = in.gt_boxes.select(2, 1).unsqueeze(2);  // [B, M, 1]
  auto in_centre = (centre_x - (gx - radius)) > 0;
  in_centre = torch::logical_and(in_centre, ((gx + radius) - centre_x) > 0);
  in_centre = torch::logical_and(in_centre, (centre_y - (gy - radius)) > 0);
  in_centre = torch::logical_and(in_centre, ((gy + radius) - centre_y) > 0);
  return torch::logical_and(in_centre, in.gt_valid.unsqueeze(2));
}

// sum_c BCE(score(a, c), onehot(m)_c) as the all-negative sum over the classes plus the correction
// at the gt's class, so no [B, M, A, C] tensor is formed. The constant targets are expanded
// scalars (no filled [B, A, C] tensors), and the positive term is taken at the gt's class only:
// BCE is elementwise, so these are the values of the full tensors gathered.
torch::Tensor class_cost(const SimOtaCostInputs& in) {
  const int64_t batch = in.gt_boxes.size(0), rows = in.gt_boxes.size(1), anchors = in.pred_scores.size(1);
  const auto zero = torch::zeros({}, in.pred_scores.options()), one = torch::ones({}, in.pred_scores.options());
  const auto negative_sum = simota_negative_class_sum(in.pred_scores);
  const auto score = in.pred_scores.transpose(1, 2).gather(1, in.labels.unsqueeze(2).expand({batch, rows, anchors}));
  const auto positive = torch::binary_cross_entropy(score, one.expand_as(score), {}, at::Reduction::None);
  const auto negative = torch::binary_cross_entropy(score, zero.expand_as(score), {}, at::Reduction::None);
  return negative_sum.unsqueeze(1) + (positive - negative);
}

// The policy and the inputs decide; the first decision is logged once.
bool fused_chosen(const SimOtaCostInputs& in) {
  if (!fused_kernel_allowed("simota_cost")) return false;
  const auto refusal = simota_cost_refusal(in);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: SimOTA's centre prior, IoU and cost run the fused CUDA kernel",
                         "fused_kernels: SimOTA's centre prior, IoU and cost run PyTorch's ops");
  return refusal.empty();
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

SimOtaCost simota_cost_composed(const SimOtaCostInputs& in, const SimOtaCostOptions& options) {
  torch::NoGradGuard no_grad;
  const auto options_f = in.pred_boxes.options();
  const auto in_centre = centre_prior(in, options);
  const auto candidates = in_centre.any(1);  // [B, A]
  const auto pair_valid = torch::logical_and(in.gt_valid.unsqueeze(2), candidates.unsqueeze(1));
  const auto zero = torch::zeros({}, options_f);
  const auto iou = torch::where(pair_valid, pairwise_iou_cxcywh(in.gt_boxes, in.pred_boxes), zero);
  const auto iou_cost = -torch::log(iou + 1e-8);
  auto cost = class_cost(in) + options.iou_weight * iou_cost +
              options.outside_center_cost * in_centre.logical_not().to(options_f);
  cost = torch::where(pair_valid, cost, torch::full({}, std::numeric_limits<float>::infinity(), options_f));
  return {iou, cost, candidates};
}

std::string simota_cost_refusal(const SimOtaCostInputs& in) {
  if (auto unavailable = fused_simota_cost_unavailable(); !unavailable.empty()) return unavailable;
  if (!all_on_one_cuda_device(
          {&in.pred_boxes, &in.pred_scores, &in.grid, &in.strides, &in.gt_boxes, &in.labels, &in.gt_valid}))
    return "the inputs are not all on one CUDA device";
  if (!all_float32({&in.pred_boxes, &in.pred_scores, &in.grid, &in.strides, &in.gt_boxes}))
    return "the boxes, scores and grid are not all float32";
  if (in.labels.scalar_type() != torch::kLong || in.gt_valid.scalar_type() != torch::kBool)
    return "labels must be int64 and gt_valid bool";
  if (in.pred_scores.dim() != 3 || in.gt_boxes.dim() != 3) return "pred_scores and gt_boxes must be 3-D";
  const int64_t batch = in.pred_scores.size(0), anchors = in.pred_scores.size(1), rows = in.gt_boxes.size(1);
  if (!same_shape(in.pred_boxes, {batch, anchors, 4}) || !same_shape(in.grid, {anchors, 2}) ||
      in.strides.numel() != anchors || !same_shape(in.gt_boxes, {batch, rows, 4}) ||
      !same_shape(in.labels, {batch, rows}) || !same_shape(in.gt_valid, {batch, rows}))
    return "the shapes do not match [B, A, 4], [B, A, C], [A, 2], [A], [B, M, 4], [B, M], [B, M]";
  return "";
}

SimOtaCost simota_cost(const SimOtaCostInputs& in, const SimOtaCostOptions& options) {
  if (fused_chosen(in)) return fused_simota_cost(in, options);
  return simota_cost_composed(in, options);
}

}  // namespace libreyolo::sdk::losses

// task_aligned_metric: the assigner's candidates, IoU and alignment metric as composed PyTorch
// ops, and the choice of the fused kernel (task_aligned_metric_fused.hpp) under the fused_kernels
// policy.
#include "libreyolo/sdk/losses/task_aligned_metric.hpp"

#include <torch/torch.h>

#include <mutex>

#include "../fused_choice_log.hpp"
#include "fused_input_checks.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "task_aligned_metric_fused.hpp"

namespace libreyolo::sdk::losses {
namespace {

// Candidates [B, M, A]: anchor inside the box, within reach of the distance head, a real row.
torch::Tensor candidates_of(const AlignmentInputs& in, const TaskAlignedAssignerOptions& options) {
  const int64_t anchors = in.anchor_points.size(0);
  const auto ax = in.anchor_points.select(1, 0).view({1, 1, anchors});
  const auto ay = in.anchor_points.select(1, 1).view({1, 1, anchors});
  const auto x1 = in.gt_boxes.select(2, 0).unsqueeze(2), y1 = in.gt_boxes.select(2, 1).unsqueeze(2);
  const auto x2 = in.gt_boxes.select(2, 2).unsqueeze(2), y2 = in.gt_boxes.select(2, 3).unsqueeze(2);
  const auto to_left = ax - x1, to_right = x2 - ax, to_top = ay - y1, to_bottom = y2 - ay;
  const auto dx_min = torch::min(to_left, to_right), dy_min = torch::min(to_top, to_bottom);
  auto candidates = torch::min(dx_min, dy_min) >= 0;
  if (options.max_distance > 0) {
    const auto strides = in.anchor_strides.reshape({1, 1, anchors});
    const auto farthest = torch::max(torch::max(to_left, to_right), torch::max(to_top, to_bottom)) / strides;
    candidates = candidates & (farthest <= options.max_distance);
  }
  return candidates & in.gt_valid.unsqueeze(2);
}

// The policy and the inputs decide; the first decision is logged once.
bool fused_chosen(const AlignmentInputs& in, const TaskAlignedAssignerOptions& options) {
  if (!fused_kernel_allowed("task_aligned_metric")) return false;
  const auto refusal = task_aligned_metric_refusal(in, options);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: the task-aligned assigner's metric runs the fused CUDA kernel",
                         "fused_kernels: the task-aligned assigner's metric runs PyTorch's ops");
  return refusal.empty();
}

// PyTorch's pow(x, p) takes other paths for these exponents (a fill, rsqrt, reciprocal, 1 / x^2
// in double); the kernel reproduces the others only.
bool special_power(double p) { return p == 0.0 || p == -0.5 || p == -1.0 || p == -2.0; }

}  // namespace

AlignmentMetric task_aligned_metric_composed(const AlignmentInputs& in, const TaskAlignedAssignerOptions& options) {
  torch::NoGradGuard no_grad;
  const int64_t batch = in.gt_boxes.size(0), rows = in.gt_boxes.size(1), anchors = in.anchor_points.size(0);
  const auto candidates = candidates_of(in, options);
  const auto iou = pairwise_box_iou(in.gt_boxes, in.pred_boxes, options.iou_kind).clamp(0.0, 1.0);
  const auto score =
      in.pred_scores.transpose(1, 2).gather(1, in.labels.unsqueeze(2).expand({batch, rows, anchors}));
  const auto metric = score.pow(options.score_power) * iou.pow(options.iou_power) *
                      in.gt_valid.unsqueeze(2).to(torch::kFloat32);
  return {iou, metric, metric * candidates.to(torch::kFloat32)};
}

std::string task_aligned_metric_refusal(const AlignmentInputs& in, const TaskAlignedAssignerOptions& options) {
  if (auto unavailable = fused_task_aligned_metric_unavailable(); !unavailable.empty()) return unavailable;
  if (!all_on_one_cuda_device({&in.pred_scores, &in.pred_boxes, &in.anchor_points, &in.anchor_strides, &in.labels,
                               &in.gt_boxes, &in.gt_valid}))
    return "the inputs are not all on one CUDA device";
  if (!all_float32({&in.pred_scores, &in.pred_boxes, &in.anchor_points, &in.anchor_strides, &in.gt_boxes}))
    return "the scores, boxes and anchors are not all float32";
  if (in.labels.scalar_type() != torch::kLong || in.gt_valid.scalar_type() != torch::kBool)
    return "labels must be int64 and gt_valid bool";
  if (in.pred_scores.dim() != 3 || in.gt_boxes.dim() != 3) return "pred_scores and gt_boxes must be 3-D";
  const int64_t batch = in.pred_scores.size(0), anchors = in.pred_scores.size(1), rows = in.gt_boxes.size(1);
  if (!same_shape(in.pred_boxes, {batch, anchors, 4}) || !same_shape(in.anchor_points, {anchors, 2}) ||
      in.anchor_strides.numel() != anchors || !same_shape(in.labels, {batch, rows}) ||
      !same_shape(in.gt_boxes, {batch, rows, 4}) || !same_shape(in.gt_valid, {batch, rows}))
    return "the shapes do not match [B, A, C], [B, A, 4], [A, 2], [A], [B, M], [B, M, 4], [B, M]";
  if (special_power(options.score_power) || special_power(options.iou_power))
    return "score_power and iou_power of 0, -0.5, -1 or -2 take PyTorch paths the kernel does not reproduce";
  return "";
}

AlignmentMetric task_aligned_metric(const AlignmentInputs& in, const TaskAlignedAssignerOptions& options) {
  if (fused_chosen(in, options)) return fused_task_aligned_metric(in, options);
  return task_aligned_metric_composed(in, options);
}

}  // namespace libreyolo::sdk::losses

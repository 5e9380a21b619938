#include "libreyolo/sdk/losses/task_aligned_assigner.hpp"

#include <torch/torch.h>

#include <algorithm>

#include "libreyolo/sdk/losses/task_aligned_metric.hpp"

namespace libreyolo::sdk::losses {

namespace {

// one_hot without its range checks (on the CPU they read min/max back to the host): indices
// [...] -> [..., n] of `dtype`, the new dimension last.
torch::Tensor one_hot_last(const torch::Tensor& indices, int64_t n, torch::ScalarType dtype) {
  auto sizes = indices.sizes().vec();
  sizes.push_back(n);
  return torch::zeros(sizes, indices.options().dtype(dtype)).scatter_(-1, indices.unsqueeze(-1), 1);
}

}  // namespace

TaskAlignedAssigner::TaskAlignedAssigner(int64_t num_classes, TaskAlignedAssignerOptions options)
    : num_classes_(num_classes), options_(options) {
  TORCH_CHECK(num_classes > 0, "TaskAlignedAssigner: num_classes must be positive, got ", num_classes);
  TORCH_CHECK(options.topk > 0, "TaskAlignedAssigner: topk must be positive, got ", options.topk);
}

Assignment TaskAlignedAssigner::operator()(const torch::Tensor& pred_scores_in, const torch::Tensor& pred_boxes_in,
                                           const torch::Tensor& anchor_points_in,
                                           const torch::Tensor& anchor_strides_in,
                                           const torch::Tensor& gt_labels_in, const torch::Tensor& gt_boxes_in,
                                           const torch::Tensor& gt_valid_in) const {
  torch::NoGradGuard no_grad;
  const auto pred_scores = pred_scores_in.detach().to(torch::kFloat32);
  const auto pred_boxes = pred_boxes_in.detach().to(torch::kFloat32);
  const auto anchor_points = anchor_points_in.detach().to(torch::kFloat32);
  const auto gt_boxes = gt_boxes_in.detach().to(torch::kFloat32);
  const int64_t batch = pred_scores.size(0), anchors = pred_scores.size(1), classes = num_classes_;
  const int64_t rows = gt_boxes.size(1);
  TORCH_CHECK(pred_scores.dim() == 3 && pred_scores.size(2) == classes, "TaskAlignedAssigner: pred_scores must be [B, A, ",
              classes, "], got ", pred_scores.sizes());
  TORCH_CHECK(pred_boxes.sizes() == torch::IntArrayRef({batch, anchors, 4}),
              "TaskAlignedAssigner: pred_boxes must be [B, A, 4], got ", pred_boxes.sizes());
  TORCH_CHECK(anchor_points.sizes() == torch::IntArrayRef({anchors, 2}),
              "TaskAlignedAssigner: anchor_points must be [A, 2], got ", anchor_points.sizes());
  TORCH_CHECK(gt_boxes.dim() == 3 && gt_boxes.size(0) == batch && gt_boxes.size(2) == 4,
              "TaskAlignedAssigner: gt_boxes must be [B, M, 4], got ", gt_boxes.sizes());
  const auto anchor_strides = anchor_strides_in.detach().to(torch::kFloat32).reshape({anchors});
  const auto labels = gt_labels_in.detach().to(torch::kLong).clamp(0, classes - 1);   // [B, M]
  const auto gt_valid = gt_valid_in.to(torch::kBool);                                // [B, M]

  // 1. Candidates, IoU and alignment metric [B, M, A] (task_aligned_metric.hpp: one fused
  //    kernel where the fused_kernels policy allows it, the same bits as the composed ops).
  const auto aligned = task_aligned_metric(
      {pred_scores, pred_boxes, anchor_points, anchor_strides, labels, gt_boxes, gt_valid}, options_);
  const auto& iou = aligned.iou;
  const auto& metric = aligned.metric;

  // 2. Top-k candidates per gt, with metric > 0.
  const int64_t k = std::min(options_.topk, anchors);
  const auto top = aligned.candidate_metric.topk(k, -1);
  auto positive = torch::zeros_like(metric).scatter(-1, std::get<1>(top), std::get<0>(top)) > 0;

  // 3. A gt with no positive anchor takes its best anchor overall (if its metric is > 0).
  if (options_.ensure_one_anchor) {
    const auto best = metric.max(-1);
    const auto orphan = (positive.sum(-1) == 0) & (std::get<0>(best) > 0);  // [B, M]
    const auto best_anchor = one_hot_last(std::get<1>(best), anchors, torch::kBool);
    positive = torch::where(orphan.unsqueeze(2), best_anchor, positive);
  }

  // 4. An anchor claimed by several gts keeps the gt with the highest IoU.
  const auto claims = positive.sum(1);  // [B, A]
  const auto best_gt = (iou * positive.to(torch::kFloat32)).argmax(1);   // [B, A]
  const auto best_gt_mask = one_hot_last(best_gt, rows, torch::kBool).transpose(1, 2);  // [B, M, A]
  positive = torch::where((claims > 1).unsqueeze(1), best_gt_mask, positive);

  const auto positive_f = positive.to(torch::kFloat32);
  const auto foreground = positive.any(1);  // [B, A]
  const auto gt_index = positive_f.argmax(1);  // [B, A]; 0 for background
  const auto assigned_labels = labels.gather(1, gt_index);
  const auto assigned_boxes = gt_boxes.gather(1, gt_index.unsqueeze(2).expand({batch, anchors, 4}));

  // 5. Normalised target scores: metric / (gt's max metric) * (gt's max IoU), over positives.
  const auto metric_pos = metric * positive_f;
  const auto iou_pos = iou * positive_f;
  const auto normalised = metric_pos / (metric_pos.amax(-1, true) + options_.eps) * iou_pos.amax(-1, true);
  const auto anchor_score = normalised.sum(1);  // [B, A]: one gt at most per anchor now
  const auto scores = one_hot_last(assigned_labels, classes, torch::kFloat32) *
                      (anchor_score * foreground.to(torch::kFloat32)).unsqueeze(2);
  return {foreground, gt_index, assigned_labels, assigned_boxes, scores};
}

}  // namespace libreyolo::sdk::losses

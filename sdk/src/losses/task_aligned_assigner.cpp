#include "libreyolo/sdk/losses/task_aligned_assigner.hpp"

#include <torch/torch.h>

#include "libreyolo/sdk/losses/task_aligned_metric.hpp"
#include "libreyolo/sdk/losses/task_aligned_selection.hpp"

namespace libreyolo::sdk::losses {

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

  // 2-5. Top-k, orphans, conflicts, normalised scores (task_aligned_selection.hpp: PyTorch's
  //      top-k and fused kernels where the policy allows them, the same bits as the composed ops).
  return task_aligned_selection(aligned, labels, gt_boxes, classes, options_);
}

}  // namespace libreyolo::sdk::losses

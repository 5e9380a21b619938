// task_aligned_selection: the assigner's stages after the metric as composed PyTorch ops, and the
// choice of the fused kernels (task_aligned_selection_fused.hpp) under the fused_kernels policy.
#include "libreyolo/sdk/losses/task_aligned_selection.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <mutex>

#include "../fused_choice_log.hpp"
#include "fused_input_checks.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "task_aligned_selection_fused.hpp"

namespace libreyolo::sdk::losses {
namespace {

// one_hot without its range checks (on the CPU they read min/max back to the host): indices
// [...] -> [..., n] of `dtype`, the new dimension last.
torch::Tensor one_hot_last(const torch::Tensor& indices, int64_t n, torch::ScalarType dtype) {
  auto sizes = indices.sizes().vec();
  sizes.push_back(n);
  return torch::zeros(sizes, indices.options().dtype(dtype)).scatter_(-1, indices.unsqueeze(-1), 1);
}

// Steps 2-4: each gt's top-k candidates with metric > 0; a gt left with none takes its best
// anchor overall (if that metric is > 0); an anchor claimed by several gts keeps the one of the
// highest IoU. [B, M, A] bool.
torch::Tensor positives(const AlignmentMetric& aligned, const TaskAlignedAssignerOptions& options) {
  const auto& metric = aligned.metric;
  const int64_t rows = metric.size(1), anchors = metric.size(2);
  const auto top = aligned.candidate_metric.topk(std::min(options.topk, anchors), -1);
  auto positive = torch::zeros_like(metric).scatter(-1, std::get<1>(top), std::get<0>(top)) > 0;
  if (options.ensure_one_anchor) {
    const auto best = metric.max(-1);
    const auto orphan = (positive.sum(-1) == 0) & (std::get<0>(best) > 0);  // [B, M]
    const auto best_anchor = one_hot_last(std::get<1>(best), anchors, torch::kBool);
    positive = torch::where(orphan.unsqueeze(2), best_anchor, positive);
  }
  const auto claims = positive.sum(1);  // [B, A]
  const auto best_gt = (aligned.iou * positive.to(torch::kFloat32)).argmax(1);             // [B, A]
  const auto best_gt_mask = one_hot_last(best_gt, rows, torch::kBool).transpose(1, 2);     // [B, M, A]
  return torch::where((claims > 1).unsqueeze(1), best_gt_mask, positive);
}

bool fused_chosen(const AlignmentMetric& aligned, const torch::Tensor& labels, const torch::Tensor& gt_boxes,
                  int64_t classes) {
  if (!fused_kernel_allowed("task_aligned_selection")) return false;
  const auto refusal = task_aligned_selection_refusal(aligned, labels, gt_boxes, classes);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: the task-aligned assigner's selection runs the fused CUDA kernels",
                         "fused_kernels: the task-aligned assigner's selection runs PyTorch's ops");
  return refusal.empty();
}

}  // namespace

Assignment task_aligned_selection_composed(const AlignmentMetric& aligned, const torch::Tensor& labels,
                                           const torch::Tensor& gt_boxes, int64_t classes,
                                           const TaskAlignedAssignerOptions& options) {
  torch::NoGradGuard no_grad;
  const int64_t batch = aligned.metric.size(0), anchors = aligned.metric.size(2);
  const auto positive = positives(aligned, options);
  const auto positive_f = positive.to(torch::kFloat32);
  const auto foreground = positive.any(1);     // [B, A]
  const auto gt_index = positive_f.argmax(1);  // [B, A]; 0 for background
  const auto assigned_labels = labels.gather(1, gt_index);
  const auto assigned_boxes = gt_boxes.gather(1, gt_index.unsqueeze(2).expand({batch, anchors, 4}));
  // Step 5. Normalised target scores: metric / (gt's max metric) * (gt's max IoU), over positives.
  const auto metric_pos = aligned.metric * positive_f;
  const auto iou_pos = aligned.iou * positive_f;
  const auto normalised = metric_pos / (metric_pos.amax(-1, true) + options.eps) * iou_pos.amax(-1, true);
  const auto anchor_score = normalised.sum(1) * foreground.to(torch::kFloat32);  // [B, A]: one gt at most now
  Assignment out{foreground, gt_index, assigned_labels, assigned_boxes, {}, anchor_score};
  if (options.dense_scores) out.scores = dense_scores(out, classes);
  return out;
}

torch::Tensor dense_scores(const Assignment& assignment, int64_t num_classes) {
  if (assignment.scores.defined()) return assignment.scores;
  TORCH_CHECK(assignment.labels.defined() && assignment.anchor_scores.defined(),
              "dense_scores: the assignment has neither scores nor labels and anchor_scores");
  return one_hot_last(assignment.labels, num_classes, torch::kFloat32) * assignment.anchor_scores.unsqueeze(2);
}

std::string task_aligned_selection_refusal(const AlignmentMetric& aligned, const torch::Tensor& labels,
                                           const torch::Tensor& gt_boxes, int64_t classes) {
  if (auto unavailable = fused_task_aligned_selection_unavailable(); !unavailable.empty()) return unavailable;
  if (!all_on_one_cuda_device({&aligned.metric, &aligned.iou, &aligned.candidate_metric, &labels, &gt_boxes}))
    return "the inputs are not all on one CUDA device";
  if (!all_float32({&aligned.iou, &aligned.metric, &aligned.candidate_metric, &gt_boxes}))
    return "the metric, IoU and boxes are not all float32";
  if (labels.scalar_type() != torch::kLong) return "labels must be int64";
  if (aligned.metric.dim() != 3) return "the metric must be [B, M, A]";
  const auto sizes = aligned.metric.sizes();
  if (aligned.iou.sizes() != sizes || aligned.candidate_metric.sizes() != sizes ||
      labels.sizes() != torch::IntArrayRef({sizes[0], sizes[1]}) ||
      gt_boxes.sizes() != torch::IntArrayRef({sizes[0], sizes[1], 4}))
    return "the shapes do not match [B, M, A], [B, M], [B, M, 4]";
  if (classes < 1) return "classes must be positive";
  return "";
}

Assignment task_aligned_selection(const AlignmentMetric& aligned, const torch::Tensor& labels,
                                  const torch::Tensor& gt_boxes, int64_t classes,
                                  const TaskAlignedAssignerOptions& options) {
  if (fused_chosen(aligned, labels, gt_boxes, classes))
    return fused_task_aligned_selection(aligned, labels, gt_boxes, classes, options);
  return task_aligned_selection_composed(aligned, labels, gt_boxes, classes, options);
}

}  // namespace libreyolo::sdk::losses

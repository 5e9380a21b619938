#pragma once
// The task-aligned assigner's first stage (task_aligned_assigner.hpp, steps "candidates" and
// "alignment metric"), on its own so that a fused kernel can replace it: per (image, gt row,
// anchor), the IoU, the metric and the metric of candidates only, each [B, M, A] float32.
// Composed (PyTorch ops) unless the fused_kernels policy allows the SDK's CUDA kernel
// `task_aligned_metric` (docs/fused-kernels.md), which gives the same bits.

#include <torch/types.h>

#include <string>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/losses/task_aligned_assigner.hpp"

namespace libreyolo::sdk::losses {

struct AlignmentInputs {
  torch::Tensor pred_scores;     // [B, A, C] float32 probabilities (any strides)
  torch::Tensor pred_boxes;      // [B, A, 4] float32 xyxy
  torch::Tensor anchor_points;   // [A, 2] float32, the boxes' units
  torch::Tensor anchor_strides;  // A float32 values ([A] or [A, 1])
  torch::Tensor labels;          // [B, M] int64 in [0, C)
  torch::Tensor gt_boxes;        // [B, M, 4] float32 xyxy
  torch::Tensor gt_valid;        // [B, M] bool
};

struct AlignmentMetric {
  torch::Tensor iou;               // [B, M, A]: the IoU of options.iou_kind, clamped to [0, 1]
  torch::Tensor metric;            // [B, M, A]: score^score_power * iou^iou_power, 0 on padding rows
  torch::Tensor candidate_metric;  // [B, M, A]: metric where the anchor is a candidate, else 0
};

LIBREYOLO_SDK_API AlignmentMetric task_aligned_metric(const AlignmentInputs& in,
                                                      const TaskAlignedAssignerOptions& options);

// The composed ops alone, whatever the policy (the reference the fused kernel is tested against).
LIBREYOLO_SDK_API AlignmentMetric task_aligned_metric_composed(const AlignmentInputs& in,
                                                               const TaskAlignedAssignerOptions& options);

// Why the fused kernel would not take these inputs, whatever the policy ("" when it would).
LIBREYOLO_SDK_API std::string task_aligned_metric_refusal(const AlignmentInputs& in,
                                                          const TaskAlignedAssignerOptions& options);

}  // namespace libreyolo::sdk::losses

#pragma once
// The fused task-aligned metric's launch description from the inputs and options: which of
// PyTorch's pow paths each power takes and the double constants as float32. Shared by the CUDA
// wrapper (task_aligned_metric_fused.cpp) and the unit test that runs the kernel's code on the
// CPU; compiles without CUDA.

#include <cmath>

#include "../cuda/task_aligned_metric_kernels.hpp"
#include "libreyolo/sdk/losses/task_aligned_metric.hpp"

namespace libreyolo::sdk::losses {

inline fused::MetricIoU metric_iou_kind(IoUKind kind) {
  switch (kind) {
    case IoUKind::iou: return fused::MetricIoU::iou;
    case IoUKind::giou: return fused::MetricIoU::giou;
    case IoUKind::diou: return fused::MetricIoU::diou;
    default: return fused::MetricIoU::ciou;
  }
}

// Which of PyTorch's pow paths x.pow(p) takes (task_aligned_metric_refusal excludes the rest).
inline fused::PowerKind metric_power_kind(double p) {
  if (p == 1.0) return fused::PowerKind::identity;
  if (p == 0.5) return fused::PowerKind::square_root;
  if (p == 2.0) return fused::PowerKind::square;
  if (p == 3.0) return fused::PowerKind::cube;
  return fused::PowerKind::general;
}

inline fused::AlignedMetricShape metric_shape(const AlignmentInputs& in, const TaskAlignedAssignerOptions& options) {
  fused::AlignedMetricShape s;
  s.batch = in.pred_scores.size(0);
  s.anchors = in.pred_scores.size(1);
  s.classes = in.pred_scores.size(2);
  s.rows = in.gt_boxes.size(1);
  for (int d = 0; d < 3; ++d) s.score_strides[d] = in.pred_scores.stride(d);
  s.iou_kind = metric_iou_kind(options.iou_kind);
  // The double constants of box_iou become float32 where PyTorch hands a scalar to a float op.
  constexpr double kEps = 1e-7;  // box_iou's default, which the assigner uses
  s.eps = static_cast<float>(kEps);
  s.one_plus_eps = static_cast<float>(1.0 + kEps);
  s.four_over_pi_squared = static_cast<float>(4.0 / (M_PI * M_PI));
  s.score_power_kind = metric_power_kind(options.score_power);
  s.iou_power_kind = metric_power_kind(options.iou_power);
  s.score_power = static_cast<float>(options.score_power);
  s.iou_power = static_cast<float>(options.iou_power);
  s.limit_distance = options.max_distance > 0;
  s.max_distance = static_cast<float>(options.max_distance);
  return s;
}

}  // namespace libreyolo::sdk::losses

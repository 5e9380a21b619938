// The fused task-aligned metric in a CUDA build: one launch of cuda/task_aligned_metric_kernels.cu
// on the current stream (CUDA-graph capture records it like any ATen kernel). No autograd: the
// assigner runs without gradients.
#include "task_aligned_metric_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/torch.h>

#include <cmath>

#include "../cuda/task_aligned_metric_kernels.hpp"

namespace libreyolo::sdk::losses {
namespace {

fused::MetricIoU kernel_kind(IoUKind kind) {
  switch (kind) {
    case IoUKind::iou: return fused::MetricIoU::iou;
    case IoUKind::giou: return fused::MetricIoU::giou;
    case IoUKind::diou: return fused::MetricIoU::diou;
    default: return fused::MetricIoU::ciou;
  }
}

// Which of PyTorch's pow paths x.pow(p) takes (task_aligned_metric_refusal excludes the rest).
fused::PowerKind power_kind(double p) {
  if (p == 1.0) return fused::PowerKind::identity;
  if (p == 0.5) return fused::PowerKind::square_root;
  if (p == 2.0) return fused::PowerKind::square;
  if (p == 3.0) return fused::PowerKind::cube;
  return fused::PowerKind::general;
}

fused::AlignedMetricShape shape_of(const AlignmentInputs& in, const TaskAlignedAssignerOptions& options) {
  fused::AlignedMetricShape s;
  s.batch = in.pred_scores.size(0);
  s.anchors = in.pred_scores.size(1);
  s.classes = in.pred_scores.size(2);
  s.rows = in.gt_boxes.size(1);
  for (int d = 0; d < 3; ++d) s.score_strides[d] = in.pred_scores.stride(d);
  s.iou_kind = kernel_kind(options.iou_kind);
  // The double constants of box_iou become float32 where PyTorch hands a scalar to a float op.
  constexpr double kEps = 1e-7;  // box_iou's default, which the assigner uses
  s.eps = static_cast<float>(kEps);
  s.one_plus_eps = static_cast<float>(1.0 + kEps);
  s.four_over_pi_squared = static_cast<float>(4.0 / (M_PI * M_PI));
  s.score_power_kind = power_kind(options.score_power);
  s.iou_power_kind = power_kind(options.iou_power);
  s.score_power = static_cast<float>(options.score_power);
  s.iou_power = static_cast<float>(options.iou_power);
  s.limit_distance = options.max_distance > 0;
  s.max_distance = static_cast<float>(options.max_distance);
  return s;
}

}  // namespace

std::string fused_task_aligned_metric_unavailable() { return ""; }

AlignmentMetric fused_task_aligned_metric(const AlignmentInputs& in, const TaskAlignedAssignerOptions& options) {
  const c10::cuda::CUDAGuard guard(in.pred_scores.device());
  const auto shape = shape_of(in, options);
  // Small inputs made dense (no copy when they are already); the scores are read at their strides.
  const auto gt_boxes = in.gt_boxes.contiguous(), pred_boxes = in.pred_boxes.contiguous();
  const auto points = in.anchor_points.contiguous(), strides = in.anchor_strides.contiguous();
  const auto labels = in.labels.contiguous(), valid = in.gt_valid.contiguous();
  const auto options_f = in.pred_scores.options();
  AlignmentMetric out{torch::empty({shape.batch, shape.rows, shape.anchors}, options_f),
                      torch::empty({shape.batch, shape.rows, shape.anchors}, options_f),
                      torch::empty({shape.batch, shape.rows, shape.anchors}, options_f)};
  const fused::AlignedMetricInputs inputs{gt_boxes.data_ptr<float>(), pred_boxes.data_ptr<float>(),
                                          points.data_ptr<float>(),   strides.data_ptr<float>(),
                                          in.pred_scores.data_ptr<float>(), labels.data_ptr<int64_t>(),
                                          valid.data_ptr<bool>()};
  const fused::AlignedMetricOutputs outputs{out.iou.data_ptr<float>(), out.metric.data_ptr<float>(),
                                            out.candidate_metric.data_ptr<float>()};
  const int code = fused::task_aligned_metric(shape, inputs, outputs, at::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(code == 0, "fused task-aligned metric: the kernel did not launch: ",
              fused::task_aligned_metric_error_text(code));
  return out;
}

}  // namespace libreyolo::sdk::losses

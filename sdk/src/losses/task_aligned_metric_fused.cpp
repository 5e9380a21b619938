// The fused task-aligned metric in a CUDA build: one launch of cuda/task_aligned_metric_kernels.cu
// on the current stream (CUDA-graph capture records it like any ATen kernel). No autograd: the
// assigner runs without gradients.
#include "task_aligned_metric_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/torch.h>

#include "../cuda/task_aligned_metric_kernels.hpp"
#include "task_aligned_metric_shape.hpp"

namespace libreyolo::sdk::losses {

std::string fused_task_aligned_metric_unavailable() { return ""; }

AlignmentMetric fused_task_aligned_metric(const AlignmentInputs& in, const TaskAlignedAssignerOptions& options) {
  const c10::cuda::CUDAGuard guard(in.pred_scores.device());
  const auto shape = metric_shape(in, options);
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

// The fused task-aligned selection in a CUDA build: PyTorch's top-k of the candidates' metric,
// then the five launches of cuda/task_aligned_selection_kernels.cu on the current stream
// (CUDA-graph capture records them like any ATen kernel). No autograd: the assigner runs without
// gradients.
#include "task_aligned_selection_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/torch.h>

#include "../cuda/task_aligned_selection_kernels.hpp"
#include "task_aligned_selection_shape.hpp"

namespace libreyolo::sdk::losses {

std::string fused_task_aligned_selection_unavailable() { return ""; }

Assignment fused_task_aligned_selection(const AlignmentMetric& aligned, const torch::Tensor& labels_in,
                                        const torch::Tensor& gt_boxes_in, int64_t classes,
                                        const TaskAlignedAssignerOptions& options) {
  const c10::cuda::CUDAGuard guard(aligned.metric.device());
  const auto metric = aligned.metric.contiguous(), iou = aligned.iou.contiguous();
  const auto labels = labels_in.contiguous(), gt_boxes = gt_boxes_in.contiguous();
  const auto s = selection_shape(metric, classes, options);
  const auto top = aligned.candidate_metric.topk(s.topk, -1);
  const auto top_values = std::get<0>(top).contiguous(), top_index = std::get<1>(top).contiguous();

  const auto f32 = metric.options();
  auto positive = torch::zeros({s.batch, s.rows, s.anchors}, f32.dtype(torch::kUInt8));
  auto row_maxima = torch::empty({2, s.batch, s.rows}, f32);
  Assignment out{torch::empty({s.batch, s.anchors}, f32.dtype(torch::kBool)),
                 torch::empty({s.batch, s.anchors}, f32.dtype(torch::kLong)),
                 torch::empty({s.batch, s.anchors}, f32.dtype(torch::kLong)),
                 torch::empty({s.batch, s.anchors, 4}, f32),
                 options.dense_scores ? torch::empty({s.batch, s.anchors, classes}, f32) : torch::Tensor(),
                 torch::empty({s.batch, s.anchors}, f32)};
  const fused::SelectionInputs inputs{metric.data_ptr<float>(), iou.data_ptr<float>(), top_values.data_ptr<float>(),
                                      top_index.data_ptr<int64_t>(), labels.data_ptr<int64_t>(),
                                      gt_boxes.data_ptr<float>()};
  const fused::SelectionOutputs outputs{positive.data_ptr<uint8_t>(),
                                        row_maxima[0].data_ptr<float>(),
                                        row_maxima[1].data_ptr<float>(),
                                        out.anchor_scores.data_ptr<float>(),
                                        out.foreground.data_ptr<bool>(),
                                        out.gt_index.data_ptr<int64_t>(),
                                        out.labels.data_ptr<int64_t>(),
                                        out.boxes.data_ptr<float>(),
                                        out.scores.defined() ? out.scores.data_ptr<float>() : nullptr};
  const int code = fused::task_aligned_selection(s, inputs, outputs, at::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(code == 0, "fused task-aligned selection: the kernels did not launch: ",
              fused::task_aligned_selection_error_text(code));
  return out;
}

}  // namespace libreyolo::sdk::losses

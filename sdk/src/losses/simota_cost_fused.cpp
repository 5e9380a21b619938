// The fused SimOTA cost in a CUDA build: the all-negative class sum by PyTorch's ops (a reduction
// whose order only PyTorch repeats), then one launch of cuda/simota_cost_kernels.cu on the
// current stream (CUDA-graph capture records it like any ATen kernel). No autograd: the
// assignment runs without gradients.
#include "simota_cost_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/torch.h>

#include "../cuda/simota_cost_kernels.hpp"
#include "simota_cost_shape.hpp"

namespace libreyolo::sdk::losses {

std::string fused_simota_cost_unavailable() { return ""; }

SimOtaCost fused_simota_cost(const SimOtaCostInputs& in, const SimOtaCostOptions& options) {
  torch::NoGradGuard no_grad;
  const c10::cuda::CUDAGuard guard(in.pred_scores.device());
  const auto shape = simota_cost_shape(in, options);
  const auto negative_sum = simota_negative_class_sum(in.pred_scores);
  // Small inputs made dense (no copy when they are already); the scores are read at their strides.
  const auto pred_boxes = in.pred_boxes.contiguous(), grid = in.grid.contiguous();
  const auto strides = in.strides.contiguous(), gt_boxes = in.gt_boxes.contiguous();
  const auto labels = in.labels.contiguous(), valid = in.gt_valid.contiguous();
  const auto options_f = in.pred_boxes.options();
  SimOtaCost out{torch::empty({shape.batch, shape.rows, shape.anchors}, options_f),
                 torch::empty({shape.batch, shape.rows, shape.anchors}, options_f),
                 torch::empty({shape.batch, shape.anchors}, options_f.dtype(torch::kBool))};
  const fused::SimOtaCostInputs inputs{pred_boxes.data_ptr<float>(), in.pred_scores.data_ptr<float>(),
                                       grid.data_ptr<float>(),       strides.data_ptr<float>(),
                                       gt_boxes.data_ptr<float>(),   labels.data_ptr<int64_t>(),
                                       valid.data_ptr<bool>(),       negative_sum.data_ptr<float>()};
  const fused::SimOtaCostOutputs outputs{out.iou.data_ptr<float>(), out.cost.data_ptr<float>(),
                                         out.candidates.data_ptr<bool>()};
  const int code = fused::simota_cost(shape, inputs, outputs, at::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(code == 0, "fused SimOTA cost: the kernel did not launch: ", fused::simota_cost_error_text(code));
  return out;
}

}  // namespace libreyolo::sdk::losses

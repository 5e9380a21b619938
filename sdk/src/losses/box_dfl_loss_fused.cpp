// The fused box losses in a CUDA build: an autograd function over the kernels of
// cuda/box_dfl_loss_kernels.cu, launched on the current stream (a CUDA graph records them like
// any ATen kernel). The forward writes each anchor's two terms and sums them with PyTorch; the
// backward reads the two upstream gradients on the device (no host sync) and writes the logits'
// gradient in one launch.
#include "box_dfl_loss_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include <cmath>

#include "../cuda/box_dfl_loss_kernels.hpp"

namespace libreyolo::sdk::losses {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

void check_launch(int code, const char* which) {
  TORCH_CHECK(code == 0, "fused box losses: the ", which, " kernel did not launch: ", fused::box_dfl_error_text(code));
}

void* current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

fused::BoxDflShape shape_of(const torch::Tensor& logits, double max_distance) {
  fused::BoxDflShape s;
  s.batch = logits.size(0);
  s.anchors = logits.size(1);
  s.bins = static_cast<int>(logits.size(3));
  s.max_distance = static_cast<float>(max_distance);
  s.eps = 1e-7f;  // box_iou's default, as the composed path calls it
  s.four_over_pi_squared = static_cast<float>(4.0 / (M_PI * M_PI));
  for (int d = 0; d < 4; ++d) s.logit_stride[d] = logits.stride(d);
  return s;
}

fused::BoxDflBuffers inputs_of(const torch::Tensor& logits, const torch::Tensor& points, const torch::Tensor& targets,
                              const torch::Tensor& weight) {
  fused::BoxDflBuffers in;
  in.logits = logits.data_ptr<float>();
  in.points = points.data_ptr<float>();
  in.targets = targets.data_ptr<float>();
  in.weight = weight.data_ptr<float>();
  return in;
}

// The logits' gradient laid out as [B, 4 * bins, A]: neighbouring threads (anchors) write
// neighbouring floats, and its [B, A, 4 * bins] view is what the criterion's split hands back.
torch::Tensor gradient_like(const torch::Tensor& logits) {
  const int64_t batch = logits.size(0), anchors = logits.size(1), bins = logits.size(3);
  return torch::empty({batch, 4, bins, anchors}, logits.options()).permute({0, 3, 1, 2});
}

class FusedBoxDflLoss : public torch::autograd::Function<FusedBoxDflLoss> {
 public:
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& logits, const torch::Tensor& points,
                               const torch::Tensor& targets, const torch::Tensor& weight, double max_distance) {
    const c10::cuda::CUDAGuard guard(logits.device());
    const auto shape = shape_of(logits, max_distance);
    auto terms = torch::empty({shape.batch * shape.anchors, 2}, logits.options());
    check_launch(fused::box_dfl_forward(shape, inputs_of(logits, points, targets, weight), terms.data_ptr<float>(),
                                        current_stream()),
                 "forward");
    ctx->save_for_backward({logits, points, targets, weight});
    ctx->saved_data["max_distance"] = max_distance;
    // Two sums, not one over dim 0 then selects: outputs that are views of one tensor would tie
    // their autograd metadata together.
    return {terms.select(1, 0).sum(), terms.select(1, 1).sum()};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& logits = saved[0];
    const c10::cuda::CUDAGuard guard(logits.device());
    const auto zero = torch::zeros({}, logits.options());
    const auto upstream = torch::stack({grads[0].defined() ? grads[0] : zero, grads[1].defined() ? grads[1] : zero})
                              .to(torch::kFloat32)
                              .contiguous();
    auto shape = shape_of(logits, ctx->saved_data["max_distance"].toDouble());
    auto grad = gradient_like(logits);
    for (int d = 0; d < 4; ++d) shape.grad_stride[d] = grad.stride(d);
    check_launch(fused::box_dfl_backward(shape, inputs_of(logits, saved[1], saved[2], saved[3]),
                                         upstream.data_ptr<float>(), grad.data_ptr<float>(), current_stream()),
                 "backward");
    return {grad, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

std::string fused_box_dfl_loss_unavailable() { return ""; }

int box_dfl_most_bins() { return fused::kMostBoxBins; }

BoxDflSums fused_box_dfl_loss(const BoxDflInputs& in) {
  const auto outputs = FusedBoxDflLoss::apply(in.logits, in.points.contiguous(), in.target_boxes.contiguous(),
                                              in.weight.contiguous(), in.max_distance);
  return {outputs[0], outputs[1]};
}

}  // namespace libreyolo::sdk::losses

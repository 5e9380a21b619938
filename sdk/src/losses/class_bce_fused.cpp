// The fused classification loss in a CUDA build: an autograd function over the kernels of
// cuda/class_bce_kernels.cu, launched on the current stream (a CUDA graph records them like any
// ATen kernel). The forward writes each anchor's sum and sums those with PyTorch; the backward
// reads the upstream gradient on the device (no host sync) and writes the logits' gradient once.
#include "class_bce_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "../cuda/class_bce_kernels.hpp"

namespace libreyolo::sdk::losses {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

void check_launch(int code, const char* which) {
  TORCH_CHECK(code == 0, "fused classification loss: the ", which, " kernel did not launch: ",
              fused::class_bce_error_text(code));
}

void* current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

fused::ClassBceShape shape_of(const torch::Tensor& logits) {
  fused::ClassBceShape s;
  s.batch = logits.size(0);
  s.anchors = logits.size(1);
  s.classes = logits.size(2);
  for (int d = 0; d < 3; ++d) s.logit_stride[d] = logits.stride(d);
  return s;
}

fused::ClassBceBuffers buffers_of(const torch::Tensor& logits, const torch::Tensor& labels,
                                  const torch::Tensor& quality, const torch::Tensor& rows) {
  fused::ClassBceBuffers in;
  in.logits = logits.data_ptr<float>();
  in.labels = labels.data_ptr<int64_t>();
  in.quality = quality.data_ptr<float>();
  in.rows = rows.numel() > 0 ? rows.data_ptr<bool>() : nullptr;
  return in;
}

class FusedClassBce : public torch::autograd::Function<FusedClassBce> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& logits, const torch::Tensor& labels,
                               const torch::Tensor& quality, const torch::Tensor& rows) {
    const c10::cuda::CUDAGuard guard(logits.device());
    const auto shape = shape_of(logits);
    auto row_sums = torch::empty({shape.batch * shape.anchors}, logits.options());
    check_launch(fused::class_bce_forward(shape, buffers_of(logits, labels, quality, rows), row_sums.data_ptr<float>(),
                                          current_stream()),
                 "forward");
    ctx->save_for_backward({logits, labels, quality, rows});
    return row_sums.sum();
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& logits = saved[0];
    const c10::cuda::CUDAGuard guard(logits.device());
    const auto upstream = grads[0].to(torch::kFloat32).reshape({1}).contiguous();
    auto shape = shape_of(logits);
    // [B, C, A] memory seen as [B, A, C]: neighbouring threads (anchors) write neighbouring floats.
    auto grad = torch::empty({shape.batch, shape.classes, shape.anchors}, logits.options()).transpose(1, 2);
    for (int d = 0; d < 3; ++d) shape.grad_stride[d] = grad.stride(d);
    check_launch(fused::class_bce_backward(shape, buffers_of(logits, saved[1], saved[2], saved[3]),
                                           upstream.data_ptr<float>(), grad.data_ptr<float>(), current_stream()),
                 "backward");
    return {grad, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

std::string fused_class_bce_unavailable() { return ""; }

torch::Tensor fused_class_bce_sum(const ClassBceInputs& in) {
  // An empty tensor for "every anchor counts": autograd's custom functions cannot take an undefined
  // tensor (their input bookkeeping asks each tensor for its device; the GPU run of 2026-12-05 threw
  // "tensor does not have a device"). torch::empty allocates nothing and launches nothing.
  const auto rows = in.rows.defined() ? in.rows.contiguous() : torch::empty({0}, in.labels.options().dtype(torch::kBool));
  return FusedClassBce::apply(in.logits, in.labels.contiguous(), in.quality.contiguous(), rows);
}

}  // namespace libreyolo::sdk::losses

// The fused block tails in a CUDA build: autograd functions over cuda/block_tail_kernels.cu,
// launched on the current stream (a CUDA graph records them like any ATen kernel). Only the
// forwards are ours: each backward is the one PyTorch's composed ops would run (silu_backward
// of the tensor silu read, the incoming gradient passed through for an addend), so the gradients
// are PyTorch's by construction and the forward keeps what the composed ops keep (silu's input).
#include "block_tails_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "cuda/block_tail_kernels.hpp"
#include "fused_layout.hpp"

namespace libreyolo::sdk {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

fused::TailShape shape_of(const torch::Tensor& like, std::initializer_list<const torch::Tensor*> tensors) {
  fused::TailShape s;
  s.count = like.numel();
  s.half = like.scalar_type() == torch::kHalf;
  s.aligned16 = fused_layout::aligned16(tensors);
  return s;
}

void check_launch(int code, const char* which) {
  TORCH_CHECK(code == 0, "fused block tail: the ", which, " kernel did not launch: ", fused::block_tail_error_text(code));
}

void* current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

// The result's memory: dense in the inputs' layout (torch::empty_like keeps a dense layout).
torch::Tensor like(const torch::Tensor& x) { return torch::empty_like(x); }

class FusedAddSilu : public torch::autograd::Function<FusedAddSilu> {
 public:
  // keep_sum: whether a backward will run (the sum is silu's input, which its backward reads).
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& a, const torch::Tensor& b, bool keep_sum) {
    const c10::cuda::CUDAGuard guard(a.device());
    auto y = like(a);
    torch::Tensor sum = keep_sum ? like(a) : torch::Tensor();
    const auto shape = keep_sum ? shape_of(a, {&a, &b, &sum, &y}) : shape_of(a, {&a, &b, &y});
    check_launch(fused::add_silu_forward(shape, a.data_ptr(), b.data_ptr(), keep_sum ? sum.data_ptr() : nullptr,
                                         y.data_ptr(), current_stream()),
                 "add + SiLU");
    if (keep_sum) ctx->save_for_backward({sum});
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto sum = ctx->get_saved_variables()[0];
    const auto grad_sum = torch::silu_backward(grads[0], sum);
    return {grad_sum, grad_sum, torch::Tensor()};  // both addends get it, as from AddBackward
  }
};

class FusedSiluAdd : public torch::autograd::Function<FusedSiluAdd> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& residual,
                               bool keep_x) {
    const c10::cuda::CUDAGuard guard(x.device());
    auto y = like(x);
    check_launch(fused::silu_add_forward(shape_of(x, {&x, &residual, &y}), x.data_ptr(), residual.data_ptr(),
                                         y.data_ptr(), current_stream()),
                 "SiLU + add");
    if (keep_x) ctx->save_for_backward({x});
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto grad_x = torch::silu_backward(grads[0], ctx->get_saved_variables()[0]);
    return {grad_x, grads[0], torch::Tensor()};  // the residual gets the gradient as from AddBackward
  }
};

void check_inputs(const torch::Tensor& a, const torch::Tensor& b, const char* what) {
  const bool float_type = a.scalar_type() == torch::kHalf || a.scalar_type() == torch::kFloat;
  TORCH_CHECK(a.is_cuda() && float_type && a.numel() > 0, what, ": the tensors must be non-empty float16 or float32 CUDA tensors, got ",
              a.scalar_type(), " on ", a.device());
  TORCH_CHECK(b.device() == a.device() && b.scalar_type() == a.scalar_type() && b.sizes() == a.sizes() &&
                  b.strides() == a.strides(),
              what, ": both tensors must have one device, type, shape and layout");
  TORCH_CHECK(a.is_non_overlapping_and_dense(), what, ": the tensors must be dense");
}

// Whether autograd will run a backward through the function (needs_input_grad cannot say before
// the function has its graph edges, which it has only then).
bool backward_will_run(const torch::Tensor& a, const torch::Tensor& b) {
  return torch::GradMode::is_enabled() && (a.requires_grad() || b.requires_grad());
}

}  // namespace

std::string fused_block_tails_unavailable() { return ""; }

torch::Tensor fused_add_silu(const torch::Tensor& a, const torch::Tensor& b) {
  check_inputs(a, b, "fused_add_silu");
  return FusedAddSilu::apply(a, b, backward_will_run(a, b));
}

torch::Tensor fused_silu_add(const torch::Tensor& x, const torch::Tensor& residual) {
  check_inputs(x, residual, "fused_silu_add");
  return FusedSiluAdd::apply(x, residual, backward_will_run(x, residual));
}

}  // namespace libreyolo::sdk

// The fused 2x2 average pool in a CUDA build: an autograd function over the kernels of
// cuda/avg_pool_2x2_kernels.cu, launched on the current stream (CUDA-graph capture records them
// like any ATen kernel).
#include "avg_pool_2x2_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "cuda/avg_pool_2x2_kernels.hpp"
#include "fused_layout.hpp"

namespace libreyolo::sdk {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

using fused_layout::aligned16;
using fused_layout::format_of;

fused::Pool2x2Shape shape_of(const torch::IntArrayRef sizes, torch::ScalarType type, bool channels_last, bool aligned) {
  fused::Pool2x2Shape s;
  s.batch = sizes[0];
  s.channels = sizes[1];
  s.height = sizes[2];
  s.width = sizes[3];
  s.channels_last = channels_last;
  s.half = type == torch::kHalf;
  s.aligned16 = aligned;
  return s;
}

void check_launch(int code, const char* which) {
  TORCH_CHECK(code == 0, "fused 2x2 average pool: the ", which, " kernel did not launch: ",
              fused::avg_pool_2x2_error_text(code));
}

void* current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

class FusedAvgPool2x2 : public torch::autograd::Function<FusedAvgPool2x2> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x) {
    const c10::cuda::CUDAGuard guard(x.device());
    const bool channels_last = fused_layout::channels_last(x);
    auto y = torch::empty({x.size(0), x.size(1), x.size(2) - 1, x.size(3) - 1},
                          x.options().memory_format(format_of(channels_last)));
    const auto shape = shape_of(x.sizes(), x.scalar_type(), channels_last, aligned16({&x, &y}));
    check_launch(fused::avg_pool_2x2_forward(shape, x.data_ptr(), y.data_ptr(), current_stream()), "forward");
    // The backward needs x's shape, type and layout, not its values.
    ctx->saved_data["sizes"] = x.sizes().vec();
    ctx->saved_data["channels_last"] = channels_last;
    ctx->saved_data["half"] = x.scalar_type() == torch::kHalf;
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto sizes = ctx->saved_data["sizes"].toIntVector();
    const bool channels_last = ctx->saved_data["channels_last"].toBool();
    const auto type = ctx->saved_data["half"].toBool() ? torch::kHalf : torch::kFloat32;
    const c10::cuda::CUDAGuard guard(grads[0].device());
    // The incoming gradient may be another type, strided or expanded: read dense in x's layout.
    const auto grad_y = grads[0].to(type).contiguous(format_of(channels_last));
    auto grad_x = torch::empty(sizes, grad_y.options().memory_format(format_of(channels_last)));
    const auto shape = shape_of(sizes, type, channels_last, aligned16({&grad_y, &grad_x}));
    check_launch(fused::avg_pool_2x2_backward(shape, grad_y.data_ptr(), grad_x.data_ptr(), current_stream()),
                 "backward");
    return {grad_x};
  }
};

}  // namespace

std::string fused_avg_pool_2x2_unavailable() { return ""; }

torch::Tensor fused_avg_pool_2x2(const torch::Tensor& x) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 4 && (x.scalar_type() == torch::kHalf || x.scalar_type() == torch::kFloat),
              "fused_avg_pool_2x2: x must be a 4-D float16 or float32 CUDA tensor, got ", x.sizes(), " ",
              x.scalar_type(), " on ", x.device());
  TORCH_CHECK(x.is_contiguous() || x.is_contiguous(torch::MemoryFormat::ChannelsLast),
              "fused_avg_pool_2x2: x must be contiguous NCHW or channels-last");
  return FusedAvgPool2x2::apply(x);
}

}  // namespace libreyolo::sdk

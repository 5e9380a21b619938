// The fused same-size max pool in a CUDA build: an autograd function over the kernels of
// cuda/max_pool_same_kernels.cu, launched on the current stream (CUDA-graph capture records them
// like any ATen kernel). The forward keeps one byte per output, where in its window its maximum
// was, for the backward.
#include "max_pool_same_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "cuda/max_pool_same_kernels.hpp"
#include "fused_layout.hpp"

namespace libreyolo::sdk {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr auto kChannelsLast = torch::MemoryFormat::ChannelsLast;

fused::MaxPoolShape shape_of(const torch::IntArrayRef sizes, torch::ScalarType type, int64_t kernel, bool aligned) {
  fused::MaxPoolShape s;
  s.batch = sizes[0];
  s.channels = sizes[1];
  s.height = sizes[2];
  s.width = sizes[3];
  s.kernel = static_cast<int>(kernel);
  s.half = type == torch::kHalf;
  s.aligned16 = aligned;
  return s;
}

void check_launch(int code, const char* which) {
  TORCH_CHECK(code == 0, "fused max pool: the ", which, " kernel did not launch: ", fused::max_pool_same_error_text(code));
}

void* current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

class FusedMaxPoolSame : public torch::autograd::Function<FusedMaxPoolSame> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, int64_t kernel) {
    const c10::cuda::CUDAGuard guard(x.device());
    auto y = torch::empty(x.sizes(), x.options().memory_format(kChannelsLast));
    auto argmax = torch::empty(x.sizes(), x.options().dtype(torch::kUInt8).memory_format(kChannelsLast));
    const auto shape = shape_of(x.sizes(), x.scalar_type(), kernel, fused_layout::aligned16({&x, &y}));
    check_launch(fused::max_pool_same_forward(shape, x.data_ptr(), y.data_ptr(), argmax.data_ptr<uint8_t>(),
                                              current_stream()),
                 "forward");
    ctx->save_for_backward({argmax});
    ctx->saved_data["kernel"] = kernel;
    ctx->saved_data["half"] = x.scalar_type() == torch::kHalf;
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto argmax = ctx->get_saved_variables()[0];
    const auto kernel = ctx->saved_data["kernel"].toInt();
    const auto type = ctx->saved_data["half"].toBool() ? torch::kHalf : torch::kFloat32;
    const c10::cuda::CUDAGuard guard(argmax.device());
    // The incoming gradient may be another type, strided or expanded: read dense channels-last.
    const auto grad_y = grads[0].to(type).contiguous(kChannelsLast);
    auto grad_x = torch::empty(argmax.sizes(), grad_y.options().memory_format(kChannelsLast));
    const auto shape = shape_of(argmax.sizes(), type, kernel, fused_layout::aligned16({&grad_y, &grad_x}));
    check_launch(fused::max_pool_same_backward(shape, grad_y.data_ptr(), argmax.data_ptr<uint8_t>(), grad_x.data_ptr(),
                                               current_stream()),
                 "backward");
    return {grad_x, torch::Tensor()};
  }
};

}  // namespace

std::string fused_max_pool_same_unavailable() { return ""; }

torch::Tensor fused_max_pool_same(const torch::Tensor& x, int64_t kernel) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 4 && (x.scalar_type() == torch::kHalf || x.scalar_type() == torch::kFloat),
              "fused_max_pool_same: x must be a 4-D float16 or float32 CUDA tensor, got ", x.sizes(), " ",
              x.scalar_type(), " on ", x.device());
  TORCH_CHECK(x.is_contiguous(kChannelsLast), "fused_max_pool_same: x must be channels-last");
  TORCH_CHECK(kernel >= 1 && kernel <= 15 && kernel % 2 == 1, "fused_max_pool_same: odd kernel 1..15, got ", kernel);
  return FusedMaxPoolSame::apply(x, kernel);
}

}  // namespace libreyolo::sdk

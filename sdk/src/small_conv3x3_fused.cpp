// The small-channel 3x3 convolution in a CUDA build: an autograd function over the kernels of
// cuda/small_conv3x3_kernels.cu, launched on the current stream (CUDA-graph capture records them
// like any ATen kernel).
#include "small_conv3x3_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include <cstdint>

#include "cuda/small_conv3x3_kernels.hpp"
#include "fused_layout.hpp"
#include "libreyolo/sdk/weight_gradient_route.hpp"

namespace libreyolo::sdk {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr auto kChannelsLast = torch::MemoryFormat::ChannelsLast;

fused::SmallConvShape shape_of(const torch::Tensor& x) {
  return {x.size(0), x.size(1), x.size(2), x.size(3)};
}

void check_launch(int code, const char* which) {
  TORCH_CHECK(code == 0, "small 3x3 convolution: the ", which, " kernels did not launch: ",
              fused::small_conv3x3_error_text(code));
}

void* current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

// The kernels load and store 16 bytes at a time: a view may start mid-allocation.
using fused_layout::aligned16_channels_last;

torch::Tensor empty_like_channels_last(const torch::Tensor& x) {
  return torch::empty(x.sizes(), x.options().memory_format(kChannelsLast));
}

class FusedSmallConv3x3 : public torch::autograd::Function<FusedSmallConv3x3> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight) {
    const c10::cuda::CUDAGuard guard(x.device());
    const auto input = aligned16_channels_last(x), taps = aligned16_channels_last(weight);
    auto y = empty_like_channels_last(x);
    check_launch(fused::small_conv3x3_forward(shape_of(x), input.data_ptr(), taps.data_ptr(), y.data_ptr(),
                                              current_stream()),
                 "forward");
    // The backward reads x (the weight gradient) and the weight (the input gradient); the weight
    // also names the layer to the weight-gradient route.
    ctx->save_for_backward({input, taps, weight});
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& x = saved[0];
    const auto& taps = saved[1];
    const c10::cuda::CUDAGuard guard(x.device());
    // The incoming gradient may be another type or layout: read dense float16 channels-last.
    const auto grad_y = aligned16_channels_last(grads[0].to(torch::kHalf).contiguous(kChannelsLast));
    torch::Tensor grad_x, grad_weight;
    if (ctx->needs_input_grad(0)) {
      grad_x = empty_like_channels_last(x);
      check_launch(fused::small_conv3x3_input_grad(shape_of(x), grad_y.data_ptr(), taps.data_ptr(), grad_x.data_ptr(),
                                                   current_stream()),
                   "input gradient");
    }
    // On a second stream where the host routes this layer (weight_gradient_route.hpp): nothing
    // in this backward waits for it.
    if (ctx->needs_input_grad(1)) {
      grad_weight = routed_weight_gradient(saved[2], grad_y, x, [&] { return weight_gradient(x, grad_y); });
    }
    return {grad_x, grad_weight};
  }

 private:
  // Made on the current stream (the routed work runs with the second one current).
  static torch::Tensor weight_gradient(const torch::Tensor& x, const torch::Tensor& grad_y) {
    const auto shape = shape_of(x);
    auto work = torch::empty({fused::small_conv3x3_work_elements(shape)}, x.options().dtype(torch::kFloat32));
    auto grad_weight = torch::empty({x.size(1), x.size(1), 3, 3}, x.options().memory_format(kChannelsLast));
    check_launch(fused::small_conv3x3_weight_grad(shape, x.data_ptr(), grad_y.data_ptr(), work.data_ptr<float>(),
                                                  grad_weight.data_ptr(), current_stream()),
                 "weight gradient");
    return grad_weight;
  }
};

}  // namespace

std::string fused_small_conv3x3_unavailable() { return ""; }

bool fused_small_conv3x3_fits(int64_t batch, int64_t channels, int64_t height, int64_t width) {
  return fused::small_conv3x3_fits({batch, channels, height, width});
}

torch::Tensor fused_small_conv3x3(const torch::Tensor& x, const torch::Tensor& weight) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 4 && x.scalar_type() == torch::kHalf && x.is_contiguous(kChannelsLast),
              "fused_small_conv3x3: x must be a channels-last float16 CUDA tensor, got ", x.sizes(), " ",
              x.scalar_type(), " on ", x.device());
  TORCH_CHECK(weight.scalar_type() == torch::kHalf && weight.is_contiguous(kChannelsLast) &&
                  weight.sizes() == torch::IntArrayRef({x.size(1), x.size(1), 3, 3}),
              "fused_small_conv3x3: the weight must be float16 channels-last [C, C, 3, 3], got ", weight.sizes());
  return FusedSmallConv3x3::apply(x, weight);
}

}  // namespace libreyolo::sdk

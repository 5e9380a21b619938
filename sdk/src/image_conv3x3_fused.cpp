// The image convolution in a CUDA build: an autograd function over the kernels of
// cuda/image_conv3x3_kernels.cu, launched on the current stream (CUDA-graph capture records them
// like any ATen kernel).
#include "image_conv3x3_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include <cstdint>

#include "cuda/image_conv3x3_kernels.hpp"
#include "fused_layout.hpp"
#include "libreyolo/sdk/weight_gradient_route.hpp"

namespace libreyolo::sdk {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr auto kChannelsLast = torch::MemoryFormat::ChannelsLast;

fused::ImageConvShape shape_of(const torch::Tensor& x, int64_t out_channels, int64_t stride, bool focus) {
  fused::ImageConvShape s;
  s.batch = x.size(0);
  s.height = x.size(2);
  s.width = x.size(3);
  s.out_channels = out_channels;
  s.stride = stride;
  s.stride_n = x.stride(0);
  s.stride_c = x.stride(1);
  s.stride_h = x.stride(2);
  s.stride_w = x.stride(3);
  s.half_input = x.scalar_type() == torch::kHalf;
  s.focus = focus;
  return s;
}

void check_launch(int code, const char* which) {
  TORCH_CHECK(code == 0, "image 3x3 convolution: the ", which, " kernel did not launch: ",
              fused::image_conv3x3_error_text(code));
}

void* current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

// The kernels load and store 16 bytes at a time: a view may start mid-allocation.
using fused_layout::aligned16_channels_last;

class FusedImageConv3x3 : public torch::autograd::Function<FusedImageConv3x3> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               int64_t stride, bool focus) {
    const c10::cuda::CUDAGuard guard(x.device());
    const auto taps = aligned16_channels_last(weight);
    const auto shape = shape_of(x, weight.size(0), stride, focus);
    const auto out_height = fused::image_conv3x3_out_size(shape.height, stride, focus);
    const auto out_width = fused::image_conv3x3_out_size(shape.width, stride, focus);
    auto y = torch::empty({shape.batch, shape.out_channels, out_height, out_width},
                          weight.options().memory_format(kChannelsLast));
    check_launch(fused::image_conv3x3_forward(shape, x.data_ptr(), taps.data_ptr(), y.data_ptr(), current_stream()),
                 "forward");
    // The backward reads the image as it is (no copy is kept) and names the layer to the
    // weight-gradient route by the weight.
    ctx->save_for_backward({x, weight});
    ctx->saved_data["stride"] = stride;
    ctx->saved_data["focus"] = focus;
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& x = saved[0];
    const auto& weight = saved[1];
    const auto stride = ctx->saved_data["stride"].toInt();
    const bool focus = ctx->saved_data["focus"].toBool();
    const c10::cuda::CUDAGuard guard(x.device());
    TORCH_CHECK(!ctx->needs_input_grad(0), "image 3x3 convolution: the kernels compute no gradient for the image "
                                           "(conv3x3_image_refusal refuses an input that needs one)");
    // The incoming gradient may be another type or layout: read dense float16 channels-last.
    const auto grad_y = aligned16_channels_last(grads[0].to(torch::kHalf).contiguous(kChannelsLast));
    torch::Tensor grad_weight;
    if (ctx->needs_input_grad(1)) {
      const auto shape = shape_of(x, weight.size(0), stride, focus);
      grad_weight = routed_weight_gradient(weight, grad_y, x, [&] { return weight_gradient(shape, x, grad_y); });
    }
    return {torch::Tensor(), grad_weight, torch::Tensor(), torch::Tensor()};
  }

 private:
  // Made on the current stream (the routed work runs with the second one current).
  static torch::Tensor weight_gradient(const fused::ImageConvShape& shape, const torch::Tensor& x,
                                       const torch::Tensor& grad_y) {
    auto work = torch::empty({fused::image_conv3x3_work_elements(shape)}, grad_y.options().dtype(torch::kFloat32));
    auto grad_weight = torch::empty({shape.out_channels, shape.focus ? 12 : 3, 3, 3},
                                    grad_y.options().memory_format(kChannelsLast));
    check_launch(fused::image_conv3x3_weight_grad(shape, x.data_ptr(), grad_y.data_ptr(), work.data_ptr<float>(),
                                                  grad_weight.data_ptr(), current_stream()),
                 "weight gradient");
    return grad_weight;
  }
};

}  // namespace

std::string fused_image_conv3x3_unavailable() { return ""; }

bool fused_image_conv3x3_fits(int64_t batch, int64_t height, int64_t width, int64_t out_channels, int64_t stride,
                              bool focus) {
  fused::ImageConvShape s;
  s.batch = batch;
  s.height = height;
  s.width = width;
  s.out_channels = out_channels;
  s.stride = stride;
  s.focus = focus;
  return fused::image_conv3x3_fits(s);
}

torch::Tensor fused_image_conv3x3(const torch::Tensor& x, const torch::Tensor& weight, int64_t stride, bool focus) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 4 && x.size(1) == 3 &&
                  (x.scalar_type() == torch::kHalf || x.scalar_type() == torch::kFloat32),
              "fused_image_conv3x3: x must be a float32 or float16 CUDA tensor [N, 3, H, W], got ", x.sizes(), " ",
              x.scalar_type(), " on ", x.device());
  const int64_t in_channels = focus ? 12 : 3;
  TORCH_CHECK(weight.scalar_type() == torch::kHalf && weight.is_contiguous(kChannelsLast) && weight.dim() == 4 &&
                  weight.size(1) == in_channels && weight.size(2) == 3 && weight.size(3) == 3,
              "fused_image_conv3x3: the weight must be float16 channels-last [K, ", in_channels, ", 3, 3], got ",
              weight.sizes());
  return FusedImageConv3x3::apply(x, weight, stride, focus);
}

}  // namespace libreyolo::sdk

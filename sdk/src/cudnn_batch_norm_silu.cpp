// cudnn_batch_norm_silu.hpp in a CUDA build: an autograd function whose forward is cuDNN's
// BatchNorm with SWISH in one kernel (cudnn_batch_norm_api.cpp) and whose backward is our pass for
// SiLU's derivative (cuda/silu_grad_kernels.cu) followed by PyTorch's cuDNN BatchNorm backward.
// cuDNN has no backward for SWISH (NOT_SUPPORTED at every YOLO shape, docs/benchmarks.md
// "Nineteenth session"), so the forward alone is cuDNN's fusion; the backward costs what the
// composed one does (one elementwise pass, then cuDNN's BatchNorm), reading x instead of a saved
// pre-activation tensor.
#include "cudnn_batch_norm_silu.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "cuda/silu_grad_kernels.hpp"
#include "cudnn_batch_norm_api.hpp"
#include "fused_layout.hpp"

namespace libreyolo::sdk {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// g = grad_y * silu'(weight * (x - mean) * invstd + bias), channels-last like x.
torch::Tensor silu_grad(const torch::Tensor& x, const torch::Tensor& grad_y, const torch::Tensor& weight,
                        const torch::Tensor& bias, const torch::Tensor& mean, const torch::Tensor& invstd) {
  auto g = torch::empty(x.sizes(), x.options().memory_format(torch::MemoryFormat::ChannelsLast));
  fused::SiluGradShape shape;
  shape.elements = x.numel();
  shape.channels = x.size(1);
  shape.half = x.scalar_type() == torch::kHalf;
  shape.aligned16 = fused_layout::aligned16({&x, &grad_y, &g});
  const fused::SiluGradArgs args{x.data_ptr(),          grad_y.data_ptr(),      weight.data_ptr<float>(),
                                 bias.data_ptr<float>(), mean.data_ptr<float>(), invstd.data_ptr<float>(),
                                 g.data_ptr()};
  const int code = fused::silu_grad_through_batch_norm(shape, args, at::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(code == 0, "cuDNN BatchNorm + SiLU: the SiLU gradient kernel did not launch: ",
              fused::silu_grad_error_text(code));
  return g;
}

class CudnnBatchNormSilu : public torch::autograd::Function<CudnnBatchNormSilu> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               const torch::Tensor& bias, const torch::Tensor& running_mean,
                               const torch::Tensor& running_var, double momentum, double eps) {
    const c10::cuda::CUDAGuard guard(x.device());
    cudnn_bn::ForwardSaved saved;
    auto y = cudnn_bn::forward_silu(x, weight, bias, running_mean, running_var, momentum, eps, saved);
    ctx->save_for_backward({x, weight, bias, saved.save_mean, saved.save_invstd, saved.reserve});
    ctx->saved_data["eps"] = eps;
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const auto &x = s[0], &weight = s[1], &bias = s[2], &mean = s[3], &invstd = s[4], &reserve = s[5];
    const c10::cuda::CUDAGuard guard(x.device());
    // The incoming gradient may be another type or strided (a concatenation's slice): dense
    // channels-last float16 like x, as the kernel and cuDNN read it.
    const auto grad_y = grads[0].to(x.scalar_type()).contiguous(torch::MemoryFormat::ChannelsLast);
    const auto g = silu_grad(x, grad_y, weight, bias, mean, invstd);
    auto [grad_x, grad_weight, grad_bias] = at::cudnn_batch_norm_backward(
        x, g, weight, c10::nullopt, c10::nullopt, mean, invstd, ctx->saved_data["eps"].toDouble(), reserve);
    // One gradient per forward argument: none for the running statistics, momentum and eps.
    return {grad_x, grad_weight, grad_bias, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

std::string cudnn_batch_norm_silu_unavailable() { return cudnn_bn::unavailable(); }

torch::Tensor cudnn_batch_norm_silu(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                    const torch::Tensor& running_mean, const torch::Tensor& running_var,
                                    double momentum, double eps) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 4 && x.scalar_type() == torch::kHalf &&
                  x.is_contiguous(torch::MemoryFormat::ChannelsLast),
              "cudnn_batch_norm_silu: x must be a channels-last float16 4-D CUDA tensor, got ", x.sizes(), " ",
              x.scalar_type(), " on ", x.device());
  return CudnnBatchNormSilu::apply(x, weight, bias, running_mean, running_var, momentum, eps);
}

}  // namespace libreyolo::sdk

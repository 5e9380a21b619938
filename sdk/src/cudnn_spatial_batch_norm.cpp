// cudnn_spatial_batch_norm.hpp in a CUDA build: an autograd function whose forward and backward
// are cuDNN's training BatchNorm in CUDNN_BATCHNORM_SPATIAL mode (cudnn_batch_norm_api.cpp).
#include "cudnn_spatial_batch_norm.hpp"

#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include <cstdint>

#include "cudnn_batch_norm_api.hpp"

namespace libreyolo::sdk {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr int64_t kSmallPositions = int64_t{1} << 18;

class CudnnSpatialBatchNorm : public torch::autograd::Function<CudnnSpatialBatchNorm> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               const torch::Tensor& bias, const torch::Tensor& running_mean,
                               const torch::Tensor& running_var, double momentum, double eps) {
    const c10::cuda::CUDAGuard guard(x.device());
    cudnn_bn::ForwardSaved saved;
    auto y = cudnn_bn::forward_spatial(x, weight, bias, running_mean, running_var, momentum, eps, saved);
    ctx->save_for_backward({x, weight, saved.save_mean, saved.save_invstd, saved.reserve});
    ctx->saved_data["eps"] = eps;
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const auto& x = s[0];
    const c10::cuda::CUDAGuard guard(x.device());
    const cudnn_bn::ForwardSaved saved{s[2], s[3], s[4]};
    // The incoming gradient may be another type or strided (a concatenation's slice): dense
    // channels-last float16 like x, as cuDNN reads it.
    const auto grad_y = grads[0].to(x.scalar_type()).contiguous(torch::MemoryFormat::ChannelsLast);
    auto [grad_x, grad_weight, grad_bias] =
        cudnn_bn::backward_spatial(x, grad_y, s[1], saved, ctx->saved_data["eps"].toDouble());
    // One gradient per forward argument: none for the running statistics, momentum and eps.
    return {grad_x, grad_weight, grad_bias, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

std::string cudnn_spatial_batch_norm_unavailable() { return cudnn_bn::unavailable(); }

bool cudnn_spatial_batch_norm_fits(const torch::Tensor& x) {
  return x.is_cuda() && x.dim() == 4 && x.scalar_type() == torch::kHalf &&
         x.is_contiguous(torch::MemoryFormat::ChannelsLast) &&
         reinterpret_cast<std::uintptr_t>(x.data_ptr()) % 16 == 0 && x.size(0) * x.size(2) * x.size(3) < kSmallPositions;
}

torch::Tensor cudnn_spatial_batch_norm(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                       const torch::Tensor& running_mean, const torch::Tensor& running_var,
                                       double momentum, double eps) {
  TORCH_CHECK(cudnn_spatial_batch_norm_fits(x), "cudnn_spatial_batch_norm: x must be a small channels-last float16 ",
              "4-D CUDA tensor, got ", x.sizes(), " ", x.scalar_type(), " on ", x.device());
  return CudnnSpatialBatchNorm::apply(x, weight, bias, running_mean, running_var, momentum, eps);
}

}  // namespace libreyolo::sdk

// cudnn_persistent_batch_norm.hpp in a CUDA build: an autograd function whose forward and
// backward are PyTorch's own cuDNN BatchNorm calls (cudnn_batch_norm_api.cpp), each with a
// workspace of the layer's (batch_norm_workspace.hpp).
#include "cudnn_persistent_batch_norm.hpp"

#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include <cstdint>

#include "batch_norm_workspace.hpp"
#include "cudnn_batch_norm_api.hpp"

namespace libreyolo::sdk {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The layer's workspace for one direction, `bytes` of it handed to cuDNN.
torch::Tensor workspace_of(std::int64_t owner, WorkspaceUse use, std::size_t bytes, const torch::Tensor& x) {
  return batch_norm_workspace(reinterpret_cast<const void*>(static_cast<std::intptr_t>(owner)), use,
                              static_cast<std::int64_t>(bytes), x.device());
}

class OwnWorkspaceBatchNorm : public torch::autograd::Function<OwnWorkspaceBatchNorm> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               const torch::Tensor& bias, const torch::Tensor& running_mean,
                               const torch::Tensor& running_var, double momentum, double eps, std::int64_t owner) {
    const c10::cuda::CUDAGuard guard(x.device());
    const auto sizes = cudnn_bn::workspace_bytes(x);
    cudnn_bn::ForwardSaved saved;
    auto y = cudnn_bn::forward_persistent(x, weight, bias, running_mean, running_var, momentum, eps,
                                          workspace_of(owner, WorkspaceUse::forward, sizes.forward, x), sizes.forward,
                                          saved);
    ctx->save_for_backward({x, weight, saved.save_mean, saved.save_invstd, saved.reserve});
    ctx->saved_data["eps"] = eps;
    ctx->saved_data["owner"] = owner;
    ctx->saved_data["backward_bytes"] = static_cast<std::int64_t>(sizes.backward);
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const auto& x = s[0];
    const c10::cuda::CUDAGuard guard(x.device());
    const cudnn_bn::ForwardSaved saved{s[2], s[3], s[4]};
    // As PyTorch's cudnn_batch_norm_backward: the gradient dense in x's layout (a concatenation's
    // slice arrives strided) and type.
    const auto grad_y = grads[0].to(x.scalar_type()).contiguous(torch::MemoryFormat::ChannelsLast);
    const auto bytes = static_cast<std::size_t>(ctx->saved_data["backward_bytes"].toInt());
    const auto g = cudnn_bn::backward_persistent(
        x, grad_y, s[1], saved, ctx->saved_data["eps"].toDouble(),
        workspace_of(ctx->saved_data["owner"].toInt(), WorkspaceUse::backward, bytes, x), bytes);
    // One gradient per forward argument: none for the running statistics, momentum, eps, owner.
    return {g.x, g.weight, g.bias, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

bool float32_on(const torch::Tensor& t, const torch::Tensor& x) {
  return t.defined() && t.scalar_type() == torch::kFloat && t.device() == x.device() && t.is_contiguous();
}

}  // namespace

std::string own_workspace_batch_norm_unavailable() { return cudnn_bn::unavailable(); }

bool own_workspace_batch_norm_fits(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                   const torch::Tensor& running_mean, const torch::Tensor& running_var) {
  return x.is_cuda() && x.dim() == 4 && x.scalar_type() == torch::kHalf &&
         x.is_contiguous(torch::MemoryFormat::ChannelsLast) && float32_on(weight, x) && float32_on(bias, x) &&
         float32_on(running_mean, x) && float32_on(running_var, x);
}

bool stream_is_recording(const torch::Device& device) {
  const c10::cuda::CUDAGuard guard(device);
  return c10::cuda::currentStreamCaptureStatusMayInitCtx() != c10::cuda::CaptureStatus::None;
}

torch::Tensor own_workspace_batch_norm(const void* owner, const torch::Tensor& x, const torch::Tensor& weight,
                                       const torch::Tensor& bias, const torch::Tensor& running_mean,
                                       const torch::Tensor& running_var, double momentum, double eps) {
  TORCH_CHECK(own_workspace_batch_norm_fits(x, weight, bias, running_mean, running_var),
              "own_workspace_batch_norm: x must be channels-last float16 4-D CUDA with float32 parameters, got ",
              x.sizes(), " ", x.scalar_type(), " on ", x.device());
  return OwnWorkspaceBatchNorm::apply(x, weight, bias, running_mean, running_var, momentum, eps,
                                      static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(owner)));
}

}  // namespace libreyolo::sdk

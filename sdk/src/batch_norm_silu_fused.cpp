// The fused BatchNorm + SiLU in a CUDA build: an autograd function over the kernels of
// cuda/batch_norm_silu_kernels.cu, launched on the current stream (so CUDA-graph capture and the
// loader's streams see them like any ATen kernel). Outputs and workspaces come from torch's
// caching allocator, which capture also records.
#include "batch_norm_silu_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "cuda/batch_norm_silu_kernels.hpp"
#include "fused_layout.hpp"

namespace libreyolo::sdk {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

using fused_layout::aligned16;
using fused_layout::format_of;

fused::BnSiluShape shape_of(const torch::Tensor& x, bool channels_last, bool aligned) {
  fused::BnSiluShape s;
  s.batch = x.size(0);
  s.channels = x.size(1);
  s.height = x.size(2);
  s.width = x.size(3);
  s.channels_last = channels_last;
  s.half = x.scalar_type() == torch::kHalf;
  s.aligned16 = aligned;
  return s;
}

torch::TensorOptions float_options(const torch::Tensor& x) {
  return torch::TensorOptions().dtype(torch::kFloat32).device(x.device());
}

void check_launch(int code, const char* which) {
  TORCH_CHECK(code == 0, "fused BatchNorm + SiLU: the ", which, " kernels did not launch: ",
              fused::bn_silu_error_text(code));
}

void* current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

// One direction's launch: the cluster kernels (`one_launch`) or the three.
template <class Args>
int launch(const fused::BnSiluShape& shape, const Args& args, bool one_launch,
           int (*cluster_kernels)(const fused::BnSiluShape&, const Args&, void*),
           int (*three_launches)(const fused::BnSiluShape&, const Args&, void*)) {
  return (one_launch ? cluster_kernels : three_launches)(shape, args, current_stream());
}

class FusedBatchNormSilu : public torch::autograd::Function<FusedBatchNormSilu> {
 public:
  // x: CUDA [N, C, H, W] float16/float32, contiguous NCHW or channels-last; the rest float32 [C].
  // running_mean and running_var are written in place (they never need gradients).
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               const torch::Tensor& bias, const torch::Tensor& running_mean,
                               const torch::Tensor& running_var, double momentum, double eps, bool cluster) {
    const c10::cuda::CUDAGuard guard(x.device());
    const bool channels_last = fused_layout::channels_last(x);
    auto y = torch::empty(x.sizes(), x.options().memory_format(format_of(channels_last)));
    const auto shape = shape_of(x, channels_last, aligned16({&x, &y}));
    auto save_mean = torch::empty({shape.channels}, float_options(x));
    auto save_invstd = torch::empty({shape.channels}, float_options(x));
    // The cluster kernels where asked and the shape fits (they need no workspace), else the three.
    const bool one_launch = cluster && fused::bn_silu_cluster_fits(shape);
    auto workspace = torch::empty({one_launch ? 0 : fused::bn_silu_forward_workspace(shape)}, float_options(x));
    fused::BnSiluForwardArgs a;
    a.x = x.data_ptr();
    a.weight = weight.data_ptr<float>();
    a.bias = bias.data_ptr<float>();
    a.running_mean = running_mean.data_ptr<float>();
    a.running_var = running_var.data_ptr<float>();
    a.momentum = static_cast<float>(momentum);
    a.eps = static_cast<float>(eps);
    a.y = y.data_ptr();
    a.save_mean = save_mean.data_ptr<float>();
    a.save_invstd = save_invstd.data_ptr<float>();
    a.workspace = workspace.data_ptr<float>();
    check_launch(launch(shape, a, one_launch, fused::bn_silu_cluster_forward, fused::bn_silu_forward), "forward");
    // Only x is kept (not the normalised tensor nor y): the backward recomputes z from it.
    ctx->save_for_backward({x, weight, bias, save_mean, save_invstd});
    ctx->saved_data["channels_last"] = channels_last;
    ctx->saved_data["cluster"] = cluster;
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &x = saved[0], &weight = saved[1], &bias = saved[2], &save_mean = saved[3], &save_invstd = saved[4];
    const c10::cuda::CUDAGuard guard(x.device());
    const bool channels_last = ctx->saved_data["channels_last"].toBool();
    const bool cluster = ctx->saved_data["cluster"].toBool();
    // The incoming gradient may be another type, strided or expanded (a sum's backward): the
    // kernels read it dense in x's layout and type.
    const auto grad_y = grads[0].to(x.scalar_type()).contiguous(format_of(channels_last));
    auto grad_x = torch::empty(x.sizes(), x.options().memory_format(format_of(channels_last)));
    const auto shape = shape_of(x, channels_last, aligned16({&x, &grad_y, &grad_x}));
    auto grad_weight = torch::empty({shape.channels}, float_options(x));
    auto grad_bias = torch::empty({shape.channels}, float_options(x));
    // Asked again: the incoming gradient may be misaligned where x was not.
    const bool one_launch = cluster && fused::bn_silu_cluster_fits(shape);
    auto workspace = torch::empty({one_launch ? 0 : fused::bn_silu_backward_workspace(shape)}, float_options(x));
    fused::BnSiluBackwardArgs a;
    a.x = x.data_ptr();
    a.grad_y = grad_y.data_ptr();
    a.weight = weight.data_ptr<float>();
    a.bias = bias.data_ptr<float>();
    a.save_mean = save_mean.data_ptr<float>();
    a.save_invstd = save_invstd.data_ptr<float>();
    a.grad_x = grad_x.data_ptr();
    a.grad_weight = grad_weight.data_ptr<float>();
    a.grad_bias = grad_bias.data_ptr<float>();
    a.workspace = workspace.data_ptr<float>();
    check_launch(launch(shape, a, one_launch, fused::bn_silu_cluster_backward, fused::bn_silu_backward), "backward");
    // One gradient per forward argument: none for the running statistics, momentum, eps and the
    // kernel choice.
    return {grad_x, grad_weight, grad_bias, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

std::string fused_batch_norm_silu_unavailable() { return ""; }

bool fused_batch_norm_silu_clusters_on_device() { return torch::cuda::is_available() && fused::bn_silu_clusters_on_device(); }

bool fused_batch_norm_silu_cluster_fits(const torch::Tensor& x) {
  const bool channels_last = fused_layout::channels_last(x);
  return x.dim() == 4 && x.is_cuda() && (x.scalar_type() == torch::kHalf || x.scalar_type() == torch::kFloat) &&
         fused::bn_silu_cluster_fits(shape_of(x, channels_last, aligned16({&x})));
}

torch::Tensor fused_batch_norm_silu(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                    const torch::Tensor& running_mean, const torch::Tensor& running_var,
                                    double momentum, double eps, bool cluster) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 4 && (x.scalar_type() == torch::kHalf || x.scalar_type() == torch::kFloat),
              "fused_batch_norm_silu: x must be a 4-D float16 or float32 CUDA tensor, got ", x.sizes(), " ",
              x.scalar_type(), " on ", x.device());
  TORCH_CHECK(x.is_contiguous() || x.is_contiguous(torch::MemoryFormat::ChannelsLast),
              "fused_batch_norm_silu: x must be contiguous NCHW or channels-last");
  return FusedBatchNormSilu::apply(x, weight, bias, running_mean, running_var, momentum, eps, cluster);
}

}  // namespace libreyolo::sdk

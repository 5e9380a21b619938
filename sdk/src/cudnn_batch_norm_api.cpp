// cudnn_batch_norm_api.hpp: the entry points found with dlsym, descriptors as RAII holders, and
// the one forward call.
#include "cudnn_batch_norm_api.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cudnn/Handle.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <torch/torch.h>

#include <algorithm>

// cuDNN 9 marks its legacy BatchNorm entry points deprecated; they are what PyTorch itself calls
// for this BatchNorm, and the graph API's replacement offers no SiLU here (docs/fused-kernels.md).
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace libreyolo::sdk::cudnn_bn {
namespace {

// The cuDNN functions this file calls, resolved once.
struct Api {
  decltype(&cudnnCreateTensorDescriptor) create_tensor = nullptr;
  decltype(&cudnnDestroyTensorDescriptor) destroy_tensor = nullptr;
  decltype(&cudnnSetTensor4dDescriptorEx) set_tensor = nullptr;
  decltype(&cudnnDeriveBNTensorDescriptor) derive_bn = nullptr;
  decltype(&cudnnCreateActivationDescriptor) create_activation = nullptr;
  decltype(&cudnnDestroyActivationDescriptor) destroy_activation = nullptr;
  decltype(&cudnnSetActivationDescriptor) set_activation = nullptr;
  decltype(&cudnnSetActivationDescriptorSwishBeta) set_swish_beta = nullptr;
  decltype(&cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize) forward_workspace = nullptr;
  decltype(&cudnnGetBatchNormalizationTrainingExReserveSpaceSize) reserve_size = nullptr;
  decltype(&cudnnBatchNormalizationForwardTrainingEx) forward = nullptr;
  decltype(&cudnnGetBatchNormalizationBackwardExWorkspaceSize) backward_workspace = nullptr;
  decltype(&cudnnBatchNormalizationBackwardEx) backward = nullptr;
  decltype(&cudnnSetStream) set_stream = nullptr;
  decltype(&cudnnGetErrorString) error_text = nullptr;
  std::string missing;  // the first entry point not found
};

template <class F>
void find(F& slot, const char* name, void* library, std::string& missing) {
  void* p = dlsym(RTLD_DEFAULT, name);
  if (p == nullptr && library != nullptr) p = dlsym(library, name);
  slot = reinterpret_cast<F>(p);
  if (p == nullptr && missing.empty()) missing = name;
}

Api resolve() {
  Api a;
  // Already loaded by LibTorch's CUDA library where it uses cuDNN; RTLD_NOLOAD never loads another.
  void* library = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
  find(a.create_tensor, "cudnnCreateTensorDescriptor", library, a.missing);
  find(a.destroy_tensor, "cudnnDestroyTensorDescriptor", library, a.missing);
  find(a.set_tensor, "cudnnSetTensor4dDescriptorEx", library, a.missing);
  find(a.derive_bn, "cudnnDeriveBNTensorDescriptor", library, a.missing);
  find(a.create_activation, "cudnnCreateActivationDescriptor", library, a.missing);
  find(a.destroy_activation, "cudnnDestroyActivationDescriptor", library, a.missing);
  find(a.set_activation, "cudnnSetActivationDescriptor", library, a.missing);
  find(a.set_swish_beta, "cudnnSetActivationDescriptorSwishBeta", library, a.missing);
  find(a.forward_workspace, "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize", library, a.missing);
  find(a.reserve_size, "cudnnGetBatchNormalizationTrainingExReserveSpaceSize", library, a.missing);
  find(a.forward, "cudnnBatchNormalizationForwardTrainingEx", library, a.missing);
  find(a.backward_workspace, "cudnnGetBatchNormalizationBackwardExWorkspaceSize", library, a.missing);
  find(a.backward, "cudnnBatchNormalizationBackwardEx", library, a.missing);
  find(a.set_stream, "cudnnSetStream", library, a.missing);
  find(a.error_text, "cudnnGetErrorString", library, a.missing);
  return a;
}

const Api& api() {
  static const Api a = resolve();
  return a;
}

void check(cudnnStatus_t status, const char* what) {
  TORCH_CHECK(status == CUDNN_STATUS_SUCCESS, "cuDNN BatchNorm: ", what, " failed: ",
              api().error_text != nullptr ? api().error_text(status) : "(no error text)");
}

// The descriptors of one call: x (and y), the per-channel parameters, the SWISH activation.
struct Descriptors {
  cudnnTensorDescriptor_t x = nullptr, params = nullptr;
  cudnnActivationDescriptor_t swish = nullptr;

  explicit Descriptors(const torch::Tensor& t) {
    // Only float16 reaches here (forward_silu's caller and persistent_fits check it).
    const Api& a = api();
    check(a.create_tensor(&x), "cudnnCreateTensorDescriptor");
    check(a.create_tensor(&params), "cudnnCreateTensorDescriptor");
    check(a.create_activation(&swish), "cudnnCreateActivationDescriptor");
    const auto n = [&](int d) { return static_cast<int>(t.size(d)); };
    const auto s = [&](int d) { return static_cast<int>(t.stride(d)); };
    check(a.set_tensor(x, CUDNN_DATA_HALF, n(0), n(1), n(2), n(3), s(0), s(1), s(2), s(3)), "setting x's descriptor");
    check(a.derive_bn(params, x, kMode), "cudnnDeriveBNTensorDescriptor");
    check(a.set_activation(swish, CUDNN_ACTIVATION_SWISH, CUDNN_PROPAGATE_NAN, 0.0), "setting SWISH");
    check(a.set_swish_beta(swish, 1.0), "setting SWISH's beta");  // x * sigmoid(1 * x): SiLU
  }
  ~Descriptors() {
    api().destroy_activation(swish);
    api().destroy_tensor(params);
    api().destroy_tensor(x);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  // PyTorch's choice for training: the persistent kernels for NHWC float16.
  static constexpr cudnnBatchNormMode_t kMode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
};

torch::Tensor bytes(std::size_t count, const torch::Tensor& like) {
  return torch::empty({static_cast<int64_t>(count)}, like.options().dtype(torch::kByte));
}

// cuDNN's handle on the current stream.
cudnnHandle_t handle_on_stream() {
  const auto handle = at::native::getCudnnHandle();
  check(api().set_stream(handle, at::cuda::getCurrentCUDAStream().stream()), "cudnnSetStream");
  return handle;
}

void* address_or_null(const torch::Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

}  // namespace

std::string unavailable() {
  const auto& a = api();
  return a.missing.empty() ? "" : "cuDNN's " + a.missing + " is not loaded in this process";
}

torch::Tensor forward_silu(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                           const torch::Tensor& running_mean, const torch::Tensor& running_var, double momentum,
                           double eps, ForwardSaved& saved) {
  TORCH_CHECK(unavailable().empty(), "cuDNN BatchNorm: ", unavailable());
  const Api& a = api();
  const Descriptors d(x);
  const auto handle = at::native::getCudnnHandle();
  check(a.set_stream(handle, at::cuda::getCurrentCUDAStream().stream()), "cudnnSetStream");
  std::size_t workspace_size = 0, reserve_fused = 0, reserve_plain = 0;
  check(a.forward_workspace(handle, d.kMode, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, d.x, nullptr, d.x, d.params, d.swish,
                            &workspace_size),
        "the forward's workspace size");
  check(a.reserve_size(handle, d.kMode, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, d.swish, d.x, &reserve_fused),
        "the reserve space's size");
  check(a.reserve_size(handle, d.kMode, CUDNN_BATCHNORM_OPS_BN, nullptr, d.x, &reserve_plain),
        "the BatchNorm-only reserve space's size");
  auto workspace = bytes(workspace_size, x);
  saved.reserve = bytes(std::max(reserve_fused, reserve_plain), x);
  saved.save_mean = torch::empty({x.size(1)}, weight.options());
  saved.save_invstd = torch::empty({x.size(1)}, weight.options());
  auto y = torch::empty(x.sizes(), x.options().memory_format(torch::MemoryFormat::ChannelsLast));
  const float one = 1.0f, zero = 0.0f;
  check(a.forward(handle, d.kMode, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero, d.x, x.data_ptr(), nullptr, nullptr,
                  d.x, y.data_ptr(), d.params, weight.data_ptr(), bias.data_ptr(), momentum, running_mean.data_ptr(),
                  running_var.data_ptr(), eps, saved.save_mean.data_ptr(), saved.save_invstd.data_ptr(), d.swish,
                  workspace.data_ptr(), workspace_size, saved.reserve.data_ptr(), saved.reserve.numel()),
        "cudnnBatchNormalizationForwardTrainingEx (BN + SWISH)");
  return y;
}

WorkspaceBytes workspace_bytes(const torch::Tensor& x) {
  TORCH_CHECK(unavailable().empty(), "cuDNN BatchNorm: ", unavailable());
  const Api& a = api();
  const Descriptors d(x);
  const auto handle = handle_on_stream();
  WorkspaceBytes sizes;
  // x's descriptor for z too, as PyTorch's cudnn_batch_norm asks (the call itself gets no z): the
  // size may differ with it, and cuDNN may pick its kernel by the workspace it is given.
  check(a.forward_workspace(handle, d.kMode, CUDNN_BATCHNORM_OPS_BN, d.x, d.x, d.x, d.params, nullptr, &sizes.forward),
        "the forward's workspace size");
  check(a.backward_workspace(handle, d.kMode, CUDNN_BATCHNORM_OPS_BN, d.x, d.x, d.x, nullptr, d.x, d.params, nullptr,
                             &sizes.backward),
        "the backward's workspace size");
  return sizes;
}

torch::Tensor forward_persistent(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                 const torch::Tensor& running_mean, const torch::Tensor& running_var, double momentum,
                                 double eps, const torch::Tensor& workspace, std::size_t workspace_size,
                                 ForwardSaved& saved) {
  TORCH_CHECK(unavailable().empty(), "cuDNN BatchNorm: ", unavailable());
  const Api& a = api();
  const Descriptors d(x);
  const auto handle = handle_on_stream();
  std::size_t reserve_size = 0;
  check(a.reserve_size(handle, d.kMode, CUDNN_BATCHNORM_OPS_BN, nullptr, d.x, &reserve_size), "the reserve space's size");
  saved.reserve = bytes(reserve_size, x);
  saved.save_mean = torch::empty({x.size(1)}, weight.options());
  saved.save_invstd = torch::empty({x.size(1)}, weight.options());
  auto y = torch::empty(x.sizes(), x.options().memory_format(torch::MemoryFormat::ChannelsLast));
  const float one = 1.0f, zero = 0.0f;
  check(a.forward(handle, d.kMode, CUDNN_BATCHNORM_OPS_BN, &one, &zero, d.x, x.data_ptr(), nullptr, nullptr, d.x,
                  y.data_ptr(), d.params, weight.data_ptr(), bias.data_ptr(), momentum, running_mean.data_ptr(),
                  running_var.data_ptr(), eps, saved.save_mean.data_ptr(), saved.save_invstd.data_ptr(), nullptr,
                  address_or_null(workspace), workspace_size, address_or_null(saved.reserve), reserve_size),
        "cudnnBatchNormalizationForwardTrainingEx");
  return y;
}

Gradients backward_persistent(const torch::Tensor& x, const torch::Tensor& grad_y, const torch::Tensor& weight,
                              const ForwardSaved& saved, double eps, const torch::Tensor& workspace,
                              std::size_t workspace_size) {
  const Api& a = api();
  const Descriptors d(x);
  const auto handle = handle_on_stream();
  Gradients g;
  g.x = torch::empty(x.sizes(), x.options().memory_format(torch::MemoryFormat::ChannelsLast));
  g.weight = torch::empty_like(weight);
  g.bias = torch::empty_like(weight);
  const float one = 1.0f, zero = 0.0f;
  const auto reserve_size = saved.reserve.defined() ? static_cast<std::size_t>(saved.reserve.numel()) : 0;
  check(a.backward(handle, d.kMode, CUDNN_BATCHNORM_OPS_BN, &one, &zero, &one, &zero, d.x, x.data_ptr(), nullptr,
                   nullptr, d.x, grad_y.data_ptr(), nullptr, nullptr, d.x, g.x.data_ptr(), d.params, weight.data_ptr(),
                   nullptr, g.weight.data_ptr(), g.bias.data_ptr(), eps, saved.save_mean.data_ptr(),
                   saved.save_invstd.data_ptr(), nullptr, address_or_null(workspace), workspace_size,
                   address_or_null(saved.reserve), reserve_size),
        "cudnnBatchNormalizationBackwardEx");
  return g;
}

}  // namespace libreyolo::sdk::cudnn_bn

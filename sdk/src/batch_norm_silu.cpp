// batch_norm_silu: the composed BatchNorm + SiLU, and the choice of the fused kernel
// (batch_norm_silu_fused.hpp) under the fused_kernels policy.
#include "libreyolo/sdk/batch_norm_silu.hpp"

#include <torch/torch.h>

#include <cstdint>
#include <mutex>
#include <sstream>

#include "batch_norm_silu_fused.hpp"
#include "cudnn_batch_norm_silu.hpp"
#include "libreyolo/sdk/batch_count.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/log.hpp"
#include "fused_choice_log.hpp"

namespace libreyolo::sdk {
namespace {

// What the module must be: the kernel implements BatchNorm's training forward with an
// exponential running average, affine, on one process's batch.
std::string module_refusal(const BatchNorm2dImpl& bn) {
  if (!bn.is_training()) return "the BatchNorm is in evaluation mode (it normalises with running statistics)";
  if (!bn.options.track_running_stats()) return "the BatchNorm does not track running statistics";
  if (!bn.options.affine()) return "the BatchNorm has no weight and bias (affine=false)";
  if (!bn.options.momentum()) return "the BatchNorm's momentum is None (a cumulative running average)";
  if (bn.synchronized()) return "the BatchNorm is synchronised across GPUs (sync_bn)";
  for (const auto* t : {&bn.weight, &bn.bias, &bn.running_mean, &bn.running_var})
    if (!t->defined() || t->scalar_type() != torch::kFloat32 || !t->is_contiguous())
      return "the BatchNorm's weight, bias or running statistics are not contiguous float32";
  return "";
}

std::string tensor_name(const torch::Tensor& x) {
  std::ostringstream out;
  out << x.dim() << "-D " << x.scalar_type();
  return out.str();
}

// What x must be: [N, C, H, W] float16 or float32, dense in one of the two layouts the kernels
// index, more than one value per channel (BatchNorm's own training refusal).
std::string input_refusal(const BatchNorm2dImpl& bn, const torch::Tensor& x) {
  const bool float_type = x.scalar_type() == torch::kFloat32 || x.scalar_type() == torch::kFloat16;
  if (x.dim() != 4 || !float_type) return "x is " + tensor_name(x) + "; the kernel takes 4-D float16 or float32";
  if (x.size(1) != bn.options.num_features()) return "x's channels are not the BatchNorm's";
  if (x.size(1) > 65535) return "x has more than 65535 channels";
  if (!x.is_contiguous() && !x.is_contiguous(torch::MemoryFormat::ChannelsLast))
    return "x is neither contiguous NCHW nor channels-last";
  if (x.numel() / x.size(1) < 2) return "x has one value per channel";
  return "";
}

// Where: the build must have the kernels and every tensor must be on x's CUDA device.
std::string device_refusal(const BatchNorm2dImpl& bn, const torch::Tensor& x) {
  if (auto unavailable = fused_batch_norm_silu_unavailable(); !unavailable.empty()) return unavailable;
  if (!x.is_cuda()) return "x is not on a CUDA device";
  for (const auto* t : {&bn.weight, &bn.bias, &bn.running_mean, &bn.running_var})
    if (t->device() != x.device()) return "the BatchNorm's tensors are not on x's device";
  return "";
}

enum class Kernel { composed, three_launch, cluster, cudnn_silu };

// batch_norm_silu_large: the three-launch kernels only for activations of at least this many
// positions (N*H*W). Per layer on an H100 (GPU time, forward + backward, 2026-12-06) they beat
// cuDNN's BatchNorm + SiLU 1.5-1.8x at batch 16 x 320 x 320 (1.6M positions), tied at 160 x 160
// (410k) and lost at 80 x 80 and below (docs/benchmarks.md, "Thirtieth session").
constexpr int64_t kLargePositions = int64_t{1} << 20;

bool large(const torch::Tensor& x) { return x.dim() == 4 && x.size(0) * x.size(2) * x.size(3) >= kLargePositions; }

// cudnn_batch_norm_silu: cuDNN's BatchNorm with SiLU in its forward kernel, for what cuDNN's NHWC
// float16 BatchNorm takes; activations of 2^20 positions or more stay composed (there the fused
// forward measured slower than BatchNorm + a SiLU pass, 221 against 182 us at 16 x 16 x 320 x 320
// on an H200, docs/benchmarks.md "Nineteenth session").
std::string cudnn_refusal(const BatchNorm2dImpl& bn, const torch::Tensor& x) {
  if (auto why = batch_norm_silu_refusal(bn, x); !why.empty()) return why;  // the module, x's shape, the build
  if (auto unavailable = cudnn_batch_norm_silu_unavailable(); !unavailable.empty()) return unavailable;
  if (x.scalar_type() != torch::kHalf || !x.is_contiguous(torch::MemoryFormat::ChannelsLast))
    return "x is not channels-last float16 (cuDNN's fused BatchNorm + SWISH takes only that)";
  if (reinterpret_cast<std::uintptr_t>(x.data_ptr()) % 16 != 0) return "x's data is not 16-byte aligned";
  return "";
}

bool cudnn_silu_for(const BatchNorm2dImpl& bn, const torch::Tensor& x, bool log_choice) {
  if (!fused_kernel_allowed("cudnn_batch_norm_silu") || large(x)) return false;
  const auto refusal = cudnn_refusal(bn, x);
  if (log_choice) {
    static std::once_flag once;
    log_first_fused_choice(once, refusal,
                           "fused_kernels: BatchNorm + SiLU runs cuDNN's BatchNorm with SiLU in its forward kernel "
                           "(below 2^20 positions)",
                           "fused_kernels: BatchNorm + SiLU does not run cuDNN's BatchNorm with SiLU in one kernel");
  }
  return refusal.empty();
}

// Among the fused kernels the policy allows (batch_norm_silu: the three-launch kernels;
// batch_norm_silu_large: those for large activations only; batch_norm_silu_cluster: the one-launch
// cluster kernels, which take small channels-last activations only): the cluster kernels where
// they fit, else the three-launch ones where allowed.
// Where only the cluster kernels are allowed and x does not fit them, cuDNN's BatchNorm and
// PyTorch's SiLU run (so that `bench fused` measures the cluster kernels alone against the default).
Kernel kernel_for(const BatchNorm2dImpl& bn, const torch::Tensor& x, bool log_choice) {
  if (cudnn_silu_for(bn, x, log_choice)) return Kernel::cudnn_silu;
  const bool three = fused_kernel_allowed("batch_norm_silu"), cluster = fused_kernel_allowed("batch_norm_silu_cluster"),
             three_if_large = fused_kernel_allowed("batch_norm_silu_large");
  // Where only the large-activation kernels are allowed, a small x is cuDNN's without asking
  // further: every BatchNorm + SiLU call of such a run comes here, most of them small.
  if (!three && !cluster && !(three_if_large && large(x))) return Kernel::composed;
  const auto refusal = batch_norm_silu_refusal(bn, x);
  if (log_choice) {  // evaluation always composes, so only a training decision is worth the line
    static std::once_flag once;
    log_first_fused_choice(once, refusal,
                           three || cluster ? "fused_kernels: BatchNorm + SiLU runs the fused CUDA kernel"
                                            : "fused_kernels: BatchNorm + SiLU runs the fused CUDA kernels on activations "
                                              "of 2^20 positions (N*H*W) or more, cuDNN's BatchNorm below",
                           "fused_kernels: BatchNorm + SiLU runs composed PyTorch ops");
  }
  if (!refusal.empty()) return Kernel::composed;
  if (cluster && fused_batch_norm_silu_cluster_fits(x)) return Kernel::cluster;
  return three || (three_if_large && large(x)) ? Kernel::three_launch : Kernel::composed;
}

// BatchNorm's training forward, fused: the step count moves as the module's own forward moves it.
torch::Tensor fused_forward(BatchNorm2dImpl& bn, const torch::Tensor& x, Kernel kernel) {
  if (bn.num_batches_tracked.defined()) count_batch(bn.num_batches_tracked);
  if (kernel == Kernel::cudnn_silu)
    return cudnn_batch_norm_silu(x, bn.weight, bn.bias, bn.running_mean, bn.running_var, *bn.options.momentum(),
                                 bn.options.eps());
  return fused_batch_norm_silu(x, bn.weight, bn.bias, bn.running_mean, bn.running_var, *bn.options.momentum(),
                               bn.options.eps(), kernel == Kernel::cluster);
}

const char* name_of(Kernel kernel) {
  switch (kernel) {
    case Kernel::three_launch: return "three_launch";
    case Kernel::cluster: return "cluster";
    case Kernel::cudnn_silu: return "cudnn_silu";
    case Kernel::composed: break;
  }
  return "composed";
}

}  // namespace

std::string batch_norm_silu_refusal(const BatchNorm2dImpl& bn, const torch::Tensor& x) {
  if (auto why = module_refusal(bn); !why.empty()) return why;
  if (auto why = input_refusal(bn, x); !why.empty()) return why;
  return device_refusal(bn, x);
}

torch::Tensor batch_norm_silu(BatchNorm2d& bn, const torch::Tensor& x) {
  const auto kernel = kernel_for(*bn, x, bn->is_training());
  if (kernel != Kernel::composed) return fused_forward(*bn, x, kernel);
  return torch::silu(bn->forward(x));
}

bool batch_norm_silu_cluster_runnable() { return fused_batch_norm_silu_clusters_on_device(); }

std::string batch_norm_silu_kernel(const BatchNorm2dImpl& bn, const torch::Tensor& x) {
  return name_of(kernel_for(bn, x, /*log_choice=*/false));
}

}  // namespace libreyolo::sdk

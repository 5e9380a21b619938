// On a CUDA machine: the SDK's fused BatchNorm + SiLU against the composed PyTorch ops
// (silu(bn(x))) at YOLOv9-t's sizes (batch 16, 640 px, channels-last float16 as the trainer runs
// it under AMP): the largest differences of the output, grad_x, the weight's and bias's
// gradients and the running statistics (relative to each tensor's largest magnitude), and the
// time of one training forward + backward each way (as issued, and the GPU's share alone): the composed ops, the three-launch kernels
// (`batch_norm_silu`), the one-launch cluster kernels (`batch_norm_silu_cluster`, where the
// activation fits them; "composed" is printed where it does not) and cuDNN's BatchNorm with SiLU in
// its forward kernel (`cudnn_batch_norm_silu`, below 2^20 positions). Exits 77 (skipped) without CUDA or without
// the kernels in the build. Links the SDK only, so it builds in a minute on the GPU machine.
// Usage: batch_norm_silu_check
#include <torch/torch.h>

#include <libreyolo/sdk/batch_norm.hpp>
#include <libreyolo/sdk/batch_norm_silu.hpp>
#include <libreyolo/sdk/fused_kernels.hpp>

#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "gpu_check_common.hpp"

namespace sdk = libreyolo::sdk;

namespace tools = libreyolo::tools;

namespace {

struct Run {
  torch::Tensor y, grad_x, grad_weight, grad_bias, running_mean, running_var;
  double ms = 0, gpu_ms = 0;
  std::string kernel;
};

// The same layer each way: a copy of `bn` whose statistics move once per call.
Run run(sdk::FusedKernels policy, const char* only, const sdk::BatchNorm2d& bn, const torch::Tensor& x_in,
        const torch::Tensor& upstream) {
  sdk::set_fused_kernels(policy, only);
  auto layer = sdk::BatchNorm2d(std::dynamic_pointer_cast<sdk::BatchNorm2dImpl>(bn->clone()));
  Run r;
  r.kernel = sdk::batch_norm_silu_kernel(*layer, x_in);
  const auto once = [&] {
    auto x = x_in.detach().requires_grad_();
    layer->zero_grad();
    r.y = sdk::batch_norm_silu(layer, x);
    r.y.backward(upstream);
    r.grad_x = x.grad();
  };
  once();  // the differences: after one step from the same state
  r.grad_weight = layer->weight.grad().clone();
  r.grad_bias = layer->bias.grad().clone();
  r.running_mean = layer->running_mean.clone();
  r.running_var = layer->running_var.clone();
  r.ms = tools::cuda_ms_per_call(once);
  r.gpu_ms = tools::cuda_gpu_ms_per_call(once);
  return r;
}

using tools::relative;

// Both sides are inexact here (the composed ops round the normalised tensor and silu's gradient
// to float16 too; tests/unit/sdk/test_batch_norm_silu.cpp holds the fused kernel to a float64
// reference): float16 y and grad x within 2e-3, the weight's and bias's gradients (float32 sums
// over 16 * h * w values rounded differently) within 1e-3, the running statistics within 1e-4.
bool within_tolerance(const Run& fused, const Run& composed, const char* name) {
  const double d_y = relative(fused.y, composed.y), d_x = relative(fused.grad_x, composed.grad_x),
               d_w = relative(fused.grad_weight, composed.grad_weight),
               d_b = relative(fused.grad_bias, composed.grad_bias),
               d_stats = std::max(relative(fused.running_mean, composed.running_mean),
                                  relative(fused.running_var, composed.running_var));
  const bool ok = d_y < 2e-3 && d_x < 2e-3 && d_w < 1e-3 && d_b < 1e-3 && d_stats < 1e-4;
  std::cout << "  " << name << " (runs " << fused.kernel << "): " << fused.ms << " ms (GPU " << fused.gpu_ms * 1e3
            << " us); relative differences y " << d_y
            << ", grad x " << d_x << ", grad weight " << d_w << ", grad bias " << d_b << ", running stats " << d_stats
            << (ok ? " (ok)" : " (ABOVE TOLERANCE)") << "\n";
  return ok;
}

bool check(int64_t channels, int64_t size) {
  torch::manual_seed(5);
  const auto opts = torch::TensorOptions().device(torch::kCUDA);
  sdk::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(channels).eps(1e-3).momentum(0.03));
  bn->to(torch::kCUDA);
  {
    torch::NoGradGuard no_grad;
    bn->weight.copy_(torch::rand({channels}, opts) + 0.5);
    bn->bias.copy_(torch::randn({channels}, opts));
  }
  const auto shape = std::vector<int64_t>{16, channels, size, size};
  const auto channels_last = torch::MemoryFormat::ChannelsLast;
  const auto x = (torch::randn(shape, opts) * 1.5 + 0.5).to(torch::kFloat16).contiguous(channels_last);
  const auto upstream = torch::randn(shape, opts).to(torch::kFloat16).contiguous(channels_last);
  const auto composed = run(sdk::FusedKernels::off, "", bn, x, upstream);
  std::cout << std::setprecision(3) << "16x" << channels << "x" << size << "x" << size
            << " (channels-last float16): forward + backward composed " << composed.ms << " ms (GPU "
            << composed.gpu_ms * 1e3 << " us)\n";
  bool ok = true;
  for (const char* only : {"batch_norm_silu", "batch_norm_silu_cluster", "cudnn_batch_norm_silu"}) {
    const auto fused = run(sdk::FusedKernels::when_built, only, bn, x, upstream);
    ok = within_tolerance(fused, composed, only) && ok;
  }
  return ok;
}

}  // namespace

int main() {
  if (!tools::fused_kernels_runnable()) return 77;
  // Widths at strides 2 to 16 for a 640 px input, then YOLOv9-t's smaller layers (most of its
  // 221 BatchNorms are at 40 x 40 and 20 x 20, where one launch a direction matters most).
  const std::vector<std::pair<int64_t, int64_t>> cases = {{32, 320}, {64, 160}, {128, 80}, {256, 40},
                                                          {16, 320}, {32, 80}, {64, 40}, {64, 20}, {128, 20}};
  bool all = true;
  for (const auto& [channels, size] : cases) all = check(channels, size) && all;
  return all ? 0 : 1;
}

// On a CUDA machine: the SDK's fused 2x2 average pool against torch::avg_pool2d(x, 2, 1) at
// YOLOv9-t's sizes (batch 16, 640 px, channels-last float16 as the trainer runs it under AMP):
// the output must be the same bits and the input gradient within one float16 rounding
// (PyTorch's channels-last backward rounds a few elements the other way at some sizes), and the
// time of one forward + backward each way. Exits 77 (skipped) without CUDA or without the kernels in the build.
// Usage: avg_pool_2x2_check
#include <torch/torch.h>

#include <libreyolo/sdk/avg_pool_2x2.hpp>
#include <libreyolo/sdk/fused_kernels.hpp>

#include <iomanip>
#include <iostream>
#include <vector>

#include "gpu_check_common.hpp"

namespace sdk = libreyolo::sdk;
namespace tools = libreyolo::tools;

namespace {

struct Run {
  torch::Tensor y, grad_x;
  double ms = 0;
};

Run run(sdk::FusedKernels policy, const torch::Tensor& x_in, const torch::Tensor& upstream) {
  sdk::set_fused_kernels(policy, "avg_pool_2x2");
  Run r;
  const auto once = [&] {
    auto x = x_in.detach().requires_grad_();
    r.y = sdk::avg_pool_2x2(x);
    r.y.backward(upstream);
    r.grad_x = x.grad();
  };
  once();
  r.ms = tools::cuda_ms_per_call(once);
  return r;
}

bool check(int64_t channels, int64_t size) {
  torch::manual_seed(7);
  const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kFloat16);
  const auto cl = torch::MemoryFormat::ChannelsLast;
  const auto x = torch::randn({16, channels, size, size}, opts).contiguous(cl);
  const auto upstream = torch::randn({16, channels, size - 1, size - 1}, opts).contiguous(cl);
  const auto pytorch = run(sdk::FusedKernels::off, x, upstream);
  const auto fused = run(sdk::FusedKernels::when_built, x, upstream);
  const bool same_y = torch::equal(fused.y, pytorch.y);
  const double d_x = tools::relative(fused.grad_x, pytorch.grad_x);
  const bool ok = same_y && d_x <= 1e-3;
  std::cout << std::setprecision(3) << "16x" << channels << "x" << size << "x" << size << " (channels-last float16): y "
            << (same_y ? "the same bits" : "DIFFERENT") << ", grad x relative difference " << d_x
            << (ok ? " (ok)" : " (ABOVE TOLERANCE)") << "; forward + backward PyTorch " << pytorch.ms << " ms, fused "
            << fused.ms << " ms\n";
  return ok;
}

}  // namespace

int main() {
  if (!tools::fused_kernels_runnable()) return 77;
  // YOLOv9-t's AConv / ADown inputs for a 640 px image.
  const std::vector<std::pair<int64_t, int64_t>> cases = {{32, 160}, {64, 80}, {96, 40}, {64, 40}, {96, 20}};
  bool all = true;
  for (const auto& [channels, size] : cases) all = check(channels, size) && all;
  return all ? 0 : 1;
}

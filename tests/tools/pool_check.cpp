// On a CUDA machine: the SDK's fused pools against PyTorch's at the sizes the families run them
// (batch 16, 640 px, channels-last float16 as the trainer runs them under AMP): the 2x2 average
// pool at YOLOv9-t's AConv / ADown inputs, the same-size max pool at YOLOX-s's SPP (k = 5, 9, 13)
// and YOLOv9's SPPELAN (k = 5). Outputs must be the same bits and input gradients within one
// float16 rounding (PyTorch's channels-last average-pool backward rounds a few elements the other
// way at some sizes); prints the time of one forward + backward each way. Exits 77 (skipped)
// without CUDA or without the kernels in the build.
// Usage: pool_check
#include <torch/torch.h>

#include <libreyolo/sdk/avg_pool_2x2.hpp>
#include <libreyolo/sdk/fused_kernels.hpp>
#include <libreyolo/sdk/max_pool_same.hpp>

#include <functional>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "gpu_check_common.hpp"

namespace sdk = libreyolo::sdk;
namespace tools = libreyolo::tools;

namespace {

using Pool = std::function<torch::Tensor(const torch::Tensor&)>;

struct Run {
  torch::Tensor y, grad_x;
  double ms = 0;
};

Run run(sdk::FusedKernels policy, const char* kernel, const Pool& pool, const torch::Tensor& x_in) {
  sdk::set_fused_kernels(policy, kernel);
  Run r;
  torch::Tensor upstream;
  const auto once = [&] {
    auto x = x_in.detach().requires_grad_();
    r.y = pool(x);
    if (!upstream.defined()) upstream = torch::randn_like(r.y);  // seeded by the caller, same both ways
    r.y.backward(upstream);
    r.grad_x = x.grad();
  };
  once();
  r.ms = tools::cuda_ms_per_call(once);
  return r;
}

bool check(const std::string& what, const char* kernel, const Pool& pool, int64_t channels, int64_t size) {
  const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kFloat16);
  torch::manual_seed(7);
  const auto x = torch::randn({16, channels, size, size}, opts).contiguous(torch::MemoryFormat::ChannelsLast);
  torch::manual_seed(8);
  const auto pytorch = run(sdk::FusedKernels::off, kernel, pool, x);
  torch::manual_seed(8);
  const auto fused = run(sdk::FusedKernels::when_built, kernel, pool, x);
  const bool same_y = torch::equal(fused.y, pytorch.y);
  const double d_x = tools::relative(fused.grad_x, pytorch.grad_x);
  const bool ok = same_y && d_x <= 1e-3;
  std::cout << std::setprecision(3) << what << " 16x" << channels << "x" << size << "x" << size
            << " (channels-last float16): y " << (same_y ? "the same bits" : "DIFFERENT")
            << ", grad x relative difference " << d_x << (ok ? " (ok)" : " (ABOVE TOLERANCE)")
            << "; forward + backward PyTorch " << pytorch.ms << " ms, fused " << fused.ms << " ms\n";
  return ok;
}

}  // namespace

int main() {
  if (!tools::fused_kernels_runnable()) return 77;
  bool all = true;
  const Pool average = [](const torch::Tensor& x) { return sdk::avg_pool_2x2(x); };
  for (const auto& [channels, size] : std::vector<std::pair<int64_t, int64_t>>{{32, 160}, {64, 80}, {96, 40}, {64, 40}, {96, 20}})
    all = check("avg_pool_2x2", "avg_pool_2x2", average, channels, size) && all;
  for (const int64_t k : {5, 9, 13}) {
    const Pool max_k = [k](const torch::Tensor& x) { return sdk::max_pool_same(x, k); };
    all = check("max_pool_same k=" + std::to_string(k), "max_pool_same", max_k, 256, 20) && all;
  }
  const Pool max_5 = [](const torch::Tensor& x) { return sdk::max_pool_same(x, 5); };
  all = check("max_pool_same k=5", "max_pool_same", max_5, 64, 20) && all;
  return all ? 0 : 1;
}

// sdk::max_pool_same (max_pool_same.hpp): the composed path is torch::max_pool2d(x, k, 1, k / 2) bit
// for bit, auto on the CPU falls back to it, the refusals name why; on a CUDA machine the fused
// kernel gives PyTorch's outputs to the bit and routes the gradient as PyTorch's CPU kernel does
// (within one rounding of its sums; its channels-last CUDA kernel differs for windows of -inf only), with ties, NaN and all -inf windows, float16 and float32, odd channel
// counts and a misaligned view, and the same bits run after run.
#include "../torch_doctest.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "fused_test_support.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/max_pool_same.hpp"

namespace sdk = libreyolo::sdk;

namespace {

using libreyolo::test::fused_runnable;
using libreyolo::test::misaligned_copy;
using libreyolo::test::PolicyGuard;
using libreyolo::test::relative_difference;

torch::Tensor pytorch_pool(const torch::Tensor& x, int64_t k) { return torch::max_pool2d(x, {k, k}, {1, 1}, {k / 2, k / 2}); }

// Small integers: many ties inside each window, so the first-maximum rule shows; one NaN and one
// window of -inf only.
torch::Tensor tied_input(const std::vector<int64_t>& shape) {
  auto x = torch::randint(-3, 3, shape).to(torch::kFloat32);
  x.index_put_({0, 0, 0, 0}, std::numeric_limits<float>::quiet_NaN());
  if (shape[2] >= 6 && shape[3] >= 6) x.index_put_({0, 1 % shape[1], torch::indexing::Slice(3, 6), torch::indexing::Slice(3, 6)},
                                                   -std::numeric_limits<float>::infinity());
  return x;
}

void check_fused(const std::vector<int64_t>& shape, int64_t k, torch::Dtype dtype, bool misaligned) {
  INFO("shape ", torch::IntArrayRef(shape), ", k ", k, ", ", dtype, misaligned ? ", misaligned" : ", aligned");
  const auto dense = tied_input(shape).to(torch::kCUDA, dtype).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto x = misaligned ? misaligned_copy(dense) : dense;
  const auto upstream = torch::randn(shape).to(torch::kCUDA, dtype);
  const auto pool = [k](const torch::Tensor& t) { return pytorch_pool(t, k); };
  const auto want = libreyolo::test::forward_backward(x, upstream, pool);
  // The gradient's rule is PyTorch's CPU kernel's (float32 of the same values): a window of -inf
  // only sends its gradient to the window's first element. PyTorch's channels-last CUDA kernel
  // starts its index at 0, so it sends that gradient to the plane's first element instead, which
  // is outside most windows (docs/fused-kernels.md).
  const auto rule = libreyolo::test::forward_backward(x.cpu().to(torch::kFloat32), upstream.cpu().to(torch::kFloat32), pool);
  const PolicyGuard on(sdk::FusedKernels::when_built, "max_pool_same");
  REQUIRE(sdk::max_pool_same_refusal(x, k).empty());
  const auto fused = [k](const torch::Tensor& t) { return sdk::max_pool_same(t, k); };
  const auto got = libreyolo::test::forward_backward(x, upstream, fused);
  CHECK(got.y.is_contiguous(torch::MemoryFormat::ChannelsLast));
  CHECK(torch::equal(torch::nan_to_num(got.y, 123.0), torch::nan_to_num(want.y, 123.0)));
  CHECK(relative_difference(got.grad_x.cpu(), rule.grad_x.to(dtype)) <= (dtype == torch::kFloat16 ? 1e-3 : 1e-6));
  const auto again = libreyolo::test::forward_backward(x, upstream, fused);
  CHECK(torch::equal(again.grad_x, got.grad_x));
}

}  // namespace

TEST_CASE("max_pool_same composed is torch::max_pool2d(x, k, 1, k / 2), and auto on the CPU falls back to it") {
  torch::manual_seed(41);
  for (const int64_t k : {1, 3, 5, 9}) {
    const auto x = tied_input({2, 3, 7, 6});
    const auto upstream = torch::randn({2, 3, 7, 6});
    const auto want = libreyolo::test::forward_backward(x, upstream, [k](const torch::Tensor& t) { return pytorch_pool(t, k); });
    for (const auto policy : {sdk::FusedKernels::off, sdk::FusedKernels::when_built}) {
      const PolicyGuard guard(policy);
      const auto got = libreyolo::test::forward_backward(x, upstream, [k](const torch::Tensor& t) { return sdk::max_pool_same(t, k); });
      CHECK(torch::equal(torch::nan_to_num(got.y, 123.0), torch::nan_to_num(want.y, 123.0)));
      CHECK(torch::equal(got.grad_x, want.grad_x));
    }
  }
  const auto why = sdk::max_pool_same_refusal(torch::zeros({1, 2, 4, 4}), 5);
  CHECK((why == "this build has no fused CUDA kernels" || why == "x is not on a CUDA device"));
}

TEST_CASE("max_pool_same's refusals name what the kernel does not take") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto cuda = torch::TensorOptions().device(torch::kCUDA);
  const auto x = torch::zeros({1, 4, 6, 6}, cuda).contiguous(torch::MemoryFormat::ChannelsLast);
  CHECK(sdk::max_pool_same_refusal(x, 4) == "the kernel takes odd window sizes from 1 to 15");
  CHECK(sdk::max_pool_same_refusal(x, 17) == "the kernel takes odd window sizes from 1 to 15");
  CHECK(sdk::max_pool_same_refusal(torch::zeros({1, 4, 6, 6}, cuda), 5) == "x is not channels-last");
  CHECK(sdk::max_pool_same_refusal(torch::zeros({1, 4, 6}, cuda), 5) == "the kernel takes 4-D float16 or float32");
}

TEST_CASE("the fused same-size max pool gives PyTorch's outputs and routes gradients as PyTorch does") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(42);
  // C on and off the 16-byte vector (8 float16, 4 float32); planes smaller than the window too.
  const std::vector<std::vector<int64_t>> shapes = {{2, 8, 7, 9}, {3, 5, 6, 6}, {2, 16, 20, 20}, {1, 12, 3, 4}};
  for (const auto dtype : {torch::kFloat16, torch::kFloat32})
    for (const auto& shape : shapes)
      for (const int64_t k : {1, 5, 9, 13}) check_fused(shape, k, dtype, false);
  check_fused({2, 16, 20, 20}, 5, torch::kFloat16, true);
  check_fused({2, 16, 20, 20}, 13, torch::kFloat32, true);
}

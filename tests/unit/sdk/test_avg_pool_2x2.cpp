// sdk::avg_pool_2x2 (avg_pool_2x2.hpp): the composed path is torch::avg_pool2d(x, 2, 1) bit for
// bit, fused_kernels=auto falls back to it on the CPU and the refusal names why; on a CUDA
// machine the fused kernel gives PyTorch's output and input gradient bit for bit (its float16
// backward rounds each quarter of an output gradient to float16 before summing: the upstream
// gradients include tiny values whose quarters are float16 subnormals, where that rounding
// shows), float16 and float32, channels-last and NCHW, aligned or not, and the same bits run
// after run.
#include "../torch_doctest.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "libreyolo/sdk/avg_pool_2x2.hpp"
#include "fused_test_support.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"

namespace sdk = libreyolo::sdk;

namespace {

using libreyolo::test::fused_runnable;
using libreyolo::test::misaligned_copy;
using libreyolo::test::PolicyGuard;
using libreyolo::test::relative_difference;

torch::Tensor pytorch_pool(const torch::Tensor& x) { return torch::avg_pool2d(x, {2, 2}, {1, 1}, {0, 0}, false, true); }

void check_fused(const std::vector<int64_t>& shape, torch::Dtype dtype, bool channels_last, bool misaligned) {
  const std::string layout = channels_last ? "channels-last" : "NCHW";
  INFO("shape ", torch::IntArrayRef(shape), ", ", dtype, ", ", layout, misaligned ? ", misaligned" : ", aligned");
  const auto format = channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
  const auto dense = torch::randn(shape).to(torch::kCUDA, dtype).contiguous(format);
  const auto x = misaligned ? misaligned_copy(dense) : dense;
  // Half the upstream values scaled to around 1e-4: quarters of those are float16 subnormals.
  const auto normal = torch::randn({shape[0], shape[1], shape[2] - 1, shape[3] - 1});
  const auto tiny = torch::where(torch::rand(normal.sizes()) < 0.5, torch::full({}, 1e-4), torch::full({}, 1.0));
  const auto upstream = (normal * tiny).to(torch::kCUDA, dtype);
  const auto want = libreyolo::test::forward_backward(x, upstream, pytorch_pool);
  const PolicyGuard on(sdk::FusedKernels::when_built, "avg_pool_2x2");
  REQUIRE(sdk::avg_pool_2x2_refusal(x).empty());
  const auto got = libreyolo::test::forward_backward(x, upstream, sdk::avg_pool_2x2);
  CHECK(got.y.is_contiguous(format));
  CHECK(torch::equal(got.y, want.y));
  CHECK(relative_difference(got.grad_x, want.grad_x) == 0);  // says how far, where the next line fails
  CHECK(torch::equal(got.grad_x, want.grad_x));
  const auto again = libreyolo::test::forward_backward(x, upstream, sdk::avg_pool_2x2);
  CHECK(torch::equal(again.y, got.y));
  CHECK(torch::equal(again.grad_x, got.grad_x));
}

}  // namespace

TEST_CASE("avg_pool_2x2 composed is torch::avg_pool2d(x, 2, 1), and auto on the CPU falls back to it") {
  torch::manual_seed(31);
  const auto x = torch::randn({2, 6, 7, 5});
  const auto upstream = torch::randn({2, 6, 6, 4});
  const auto want = libreyolo::test::forward_backward(x, upstream, pytorch_pool);
  for (const auto policy : {sdk::FusedKernels::off, sdk::FusedKernels::when_built}) {
    const PolicyGuard guard(policy);
    const auto got = libreyolo::test::forward_backward(x, upstream, sdk::avg_pool_2x2);
    CHECK(torch::equal(got.y, want.y));
    CHECK(torch::equal(got.grad_x, want.grad_x));
  }
  const auto why = sdk::avg_pool_2x2_refusal(x);
  CHECK((why == "this build has no fused CUDA kernels" || why == "x is not on a CUDA device"));
}

TEST_CASE("avg_pool_2x2's refusals name what the kernel does not take") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto cuda = torch::TensorOptions().device(torch::kCUDA);
  CHECK(sdk::avg_pool_2x2_refusal(torch::zeros({2, 3, 4}, cuda)) == "the kernel takes 4-D float16 or float32");
  CHECK(sdk::avg_pool_2x2_refusal(torch::zeros({1, 3, 4, 4}, cuda.dtype(torch::kFloat64))) ==
        "the kernel takes 4-D float16 or float32");
  CHECK(sdk::avg_pool_2x2_refusal(torch::zeros({1, 3, 1, 4}, cuda)) == "x is empty or smaller than the window");
  CHECK(sdk::avg_pool_2x2_refusal(torch::zeros({1, 3, 4, 8}, cuda).narrow(3, 0, 4)) ==
        "x is neither contiguous NCHW nor channels-last");
}

TEST_CASE("the fused 2x2 average pool gives PyTorch's output and gradient bits") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(32);
  // C at, below and off the 16-byte vector (8 float16, 4 float32), planes from 2 x 2 up.
  const std::vector<std::vector<int64_t>> shapes = {{2, 8, 2, 2}, {3, 5, 7, 9}, {4, 32, 16, 12}, {2, 12, 5, 5},
                                                    {16, 64, 40, 40}};
  for (const auto dtype : {torch::kFloat16, torch::kFloat32})
    for (const auto& shape : shapes)
      for (const bool channels_last : {true, false}) check_fused(shape, dtype, channels_last, false);
  check_fused({4, 32, 16, 12}, torch::kFloat16, true, true);
  check_fused({4, 32, 16, 12}, torch::kFloat32, true, true);
}

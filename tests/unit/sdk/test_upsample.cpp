// The necks' 2x nearest upsample (upsample.hpp, fused_kernels=half_upsample). On every build: it
// is torch::upsample_nearest2d under each policy (values and input gradient, both layouts). On a
// GPU: under float16 autocast PyTorch runs the upsample in float32 (the premise), the policy keeps
// float16 with the same values; YOLOv9-t's whole pass equal bit for bit with it, YOLOX-s's loss
// bit for bit and its gradients within float16 rounding (see that case).
#include "../torch_doctest.hpp"
#include "../gpu_training_pass.hpp"

#include <libreyolo/sdk/fused_kernels.hpp>
#include <libreyolo/sdk/upsample.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "fused_test_support.hpp"
#include "model_pass_equality.hpp"
#include "libreyolo/core/amp/precision_plan.hpp"
#include "yolo9_detector.hpp"
#include "yolox_detector.hpp"

namespace sdk = libreyolo::sdk;
using libreyolo::test::PolicyGuard;

TEST_CASE("half upsample: the upsample is PyTorch's nearest 2x under every policy (CPU)") {
  torch::manual_seed(5);
  for (const bool channels_last : {false, true}) {
    CAPTURE(channels_last);
    auto x = torch::randn({2, 3, 4, 5}, torch::kDouble);
    if (channels_last) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
    const auto upstream = torch::randn({2, 3, 8, 10}, torch::kDouble);
    const auto want = libreyolo::test::forward_backward(
        x, upstream, [](const torch::Tensor& t) { return torch::upsample_nearest2d(t, {8, 10}); });
    for (const auto policy : {sdk::FusedKernels::off, sdk::FusedKernels::when_built}) {
      const PolicyGuard guard(policy, policy == sdk::FusedKernels::off ? "" : "half_upsample");
      const auto got = libreyolo::test::forward_backward(x, upstream, sdk::upsample_nearest_2x);
      CHECK(torch::equal(got.y, want.y));
      CHECK(torch::equal(got.grad_x, want.grad_x));
    }
  }
}

TEST_CASE("half upsample: under float16 autocast PyTorch upsamples in float32; the policy keeps float16, same values") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  const auto& gpu = libreyolo::test::kCudaZero;
  const auto x = torch::randn({2, 16, 5, 7}, gpu).to(torch::kHalf).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto plan = libreyolo::core::amp::plan_precision(true, "float16", gpu, true);
  libreyolo::core::amp::AutocastScope autocast(plan);
  torch::Tensor composed, kept;
  {
    const PolicyGuard off(sdk::FusedKernels::off);
    composed = sdk::upsample_nearest_2x(x);
  }
  {
    const PolicyGuard on(sdk::FusedKernels::when_built, "half_upsample");
    kept = sdk::upsample_nearest_2x(x);
  }
  CHECK((composed.scalar_type() == torch::kFloat));  // why the policy exists
  CHECK((kept.scalar_type() == torch::kHalf));
  CHECK(torch::equal(kept.to(torch::kFloat), composed));
}

TEST_CASE("half upsample: YOLOv9-t's loss and gradients under float16 autocast, bit for bit") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  libreyolo::test::check_passes_equal<libreyolo::families::yolo9::Yolo9Detector>(
      "t", {sdk::FusedKernels::when_built, "block_tails"}, {sdk::FusedKernels::when_built, "block_tails+half_upsample"});
}

// YOLOX's necks feed each concatenation to two convolutions, whose input gradients the backward
// adds: in float32 after the upsample went float32, in float16 (as everywhere else in the network)
// when it stays float16. So the forward is the same bits and the gradients round differently
// (measured on an H100: largest 0.5% of a tensor's magnitude in a whole step).
TEST_CASE("half upsample: YOLOX-s's loss bit for bit, its gradients within float16 rounding") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  const auto [expected, kept] = libreyolo::test::one_pass_each<libreyolo::families::yolox::YoloxDetector>(
      "s", {sdk::FusedKernels::when_built, "block_tails"}, {sdk::FusedKernels::when_built, "block_tails+half_upsample"});
  CHECK(torch::equal(expected[0], kept[0]));
  const double largest = libreyolo::test::largest_gradient_difference(expected, kept);
  MESSAGE("largest relative gradient difference " << largest);
  CHECK(largest < 3e-2);
  CHECK(largest > 0);  // the float16 sums: if they ever came out equal, this case should say bit for bit
}

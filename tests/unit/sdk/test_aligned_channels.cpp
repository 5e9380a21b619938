// Aligned channels (aligned_channels.hpp, fused_kernels=aligned_channels): a concatenation that
// feeds a convolution widened with zero channels to a multiple of eight, and the convolution of
// the wide input with its weight zero-padded. On every build: the padded concatenation's values
// and layout, the convolution's output and gradients against the narrow one, where the policy
// widens (CUDA only) and the refusals. On a GPU: YOLOX-s's training pass under float16 autocast
// with and without it, loss and gradients within float16 rounding, and the Focus input widened.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/aligned_channels.hpp>
#include <libreyolo/sdk/fused_kernels.hpp>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "fused_test_support.hpp"
#include "rounding_against_float32.hpp"
#include "yolox_detector.hpp"

namespace sdk = libreyolo::sdk;
namespace yolox = libreyolo::families::yolox;
using libreyolo::test::PolicyGuard;
using libreyolo::test::relative_difference;

namespace {

std::vector<torch::Tensor> phases_of(const torch::Tensor& image) {  // Focus's four channel groups
  const int64_t h = image.size(2), w = image.size(3);
  const auto top = image.slice(2, 0, h, 2), bottom = image.slice(2, 1, h, 2);
  return {top.slice(3, 0, w, 2), bottom.slice(3, 0, w, 2), top.slice(3, 1, w, 2), bottom.slice(3, 1, w, 2)};
}

torch::nn::Conv2d focus_like_conv(int64_t in_channels) {
  torch::manual_seed(5);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(in_channels, 6, 3).padding(1).bias(false));
  torch::NoGradGuard no_grad;
  conv->weight.set_data(conv->weight.contiguous(torch::MemoryFormat::ChannelsLast));
  return conv;
}

}  // namespace

TEST_CASE("aligned channels: the padded concatenation is the concatenation then zeros, in the parts' layout") {
  const auto image = torch::randn({2, 3, 8, 10}).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto parts = phases_of(image);
  const auto narrow = torch::cat(parts, 1);
  const auto wide = sdk::concat_channels_padded(parts, 16);
  REQUIRE(wide.sizes() == torch::IntArrayRef({2, 16, 4, 5}));
  CHECK(wide.is_contiguous(torch::MemoryFormat::ChannelsLast));
  CHECK(torch::equal(wide.narrow(1, 0, 12), narrow));
  CHECK(torch::equal(wide.narrow(1, 12, 4), torch::zeros({2, 4, 4, 5})));
  CHECK(torch::equal(sdk::concat_channels_padded(parts, 12), narrow));  // nothing to add
}

TEST_CASE("aligned channels: the wide convolution equals the narrow one, values and gradients") {
  const auto image = torch::randn({2, 3, 8, 10}, torch::kFloat64).contiguous(torch::MemoryFormat::ChannelsLast);
  auto narrow_conv = focus_like_conv(12), wide_conv = focus_like_conv(12);
  narrow_conv->to(torch::kFloat64);
  wide_conv->to(torch::kFloat64);
  auto narrow_in = image.clone().requires_grad_(), wide_in = image.clone().requires_grad_();
  const auto narrow = narrow_conv->forward(torch::cat(phases_of(narrow_in), 1));
  const auto wide = sdk::conv2d_aligned(wide_conv, sdk::concat_channels_padded(phases_of(wide_in), 16));
  const auto upstream = torch::randn_like(narrow);
  narrow.backward(upstream);
  wide.backward(upstream);
  CHECK(relative_difference(wide, narrow) < 1e-12);
  CHECK(relative_difference(wide_in.grad(), narrow_in.grad()) < 1e-12);
  REQUIRE(wide_conv->weight.grad().sizes() == narrow_conv->weight.grad().sizes());  // the stored shape kept
  CHECK(relative_difference(wide_conv->weight.grad(), narrow_conv->weight.grad()) < 1e-12);
  // The input as wide as the convolution: its own forward.
  const auto same = torch::randn({1, 12, 4, 4}, torch::kFloat64);
  CHECK(torch::equal(sdk::conv2d_aligned(narrow_conv, same), narrow_conv->forward(same)));
}

TEST_CASE("aligned channels: widened only on CUDA where the policy allows it; bad inputs refused") {
  const auto parts = phases_of(torch::randn({1, 3, 4, 4}));
  {
    const PolicyGuard on(sdk::FusedKernels::when_built, "aligned_channels");
    CHECK(sdk::concat_channels_aligned(parts).size(1) == 12);  // a CPU tensor: cuDNN is not there to pad
  }
  {
    const PolicyGuard measured(sdk::FusedKernels::measured);  // not in the default
    CHECK_FALSE(sdk::fused_kernel_allowed("aligned_channels"));
  }
  auto conv = focus_like_conv(12);
  CHECK_THROWS_AS(sdk::conv2d_aligned(conv, torch::randn({1, 8, 4, 4})), std::invalid_argument);
  torch::nn::Conv2d grouped(torch::nn::Conv2dOptions(12, 6, 3).padding(1).groups(2));
  CHECK_THROWS_AS(sdk::conv2d_aligned(grouped, torch::randn({1, 16, 4, 4})), std::invalid_argument);
}

// The wide convolution sums sixteen channels where the narrow one summed twelve (cuDNN's own
// padding adds the same zeros, but its kernels may order the sums differently), so the loss and
// gradients agree within float16 rounding, not bit for bit: measured against a float32 pass, as
// close to it as PyTorch's own float16 pass is (rounding_against_float32.hpp says how that is
// judged and why not with a fixed tolerance).
TEST_CASE("aligned channels on the GPU: YOLOX-s's loss and gradients round like PyTorch's, the Focus input widened") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  {
    const PolicyGuard on(sdk::FusedKernels::when_built, "aligned_channels");
    const auto image = torch::rand({2, 3, 64, 64}, torch::kCUDA).contiguous(torch::MemoryFormat::ChannelsLast);
    CHECK(sdk::concat_channels_aligned(phases_of(image)).size(1) == 16);
  }
  const auto report = libreyolo::test::rounding_against_float32<yolox::YoloxDetector>(
      "s", {sdk::FusedKernels::when_built, "block_tails"}, {sdk::FusedKernels::when_built, "block_tails+aligned_channels"});
  libreyolo::test::check_rounds_like_pytorch(report);
}

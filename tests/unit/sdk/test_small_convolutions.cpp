// Small convolutions (small_convolutions.hpp, fused_kernels=small_convolutions): 3x3 convolutions
// of 16, 24 or 32 channels on the SDK's kernels. On every build: which convolutions and inputs the
// kernels refuse and why, and that a refusal (every CPU input) is the convolution's own forward,
// bit for bit. On a GPU: the kernels' output and both gradients against cuDNN's for each channel
// count and odd map sizes, under float16 autocast from float32 too, and YOLOv9-t's training pass
// with and without them within float16 rounding.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/fused_kernels.hpp>
#include <libreyolo/sdk/small_convolutions.hpp>

#include <algorithm>
#include <cstddef>
#include <string>

#include "fused_test_support.hpp"
#include "libreyolo/core/amp/precision_plan.hpp"
#include "rounding_against_float32.hpp"
#include "yolo9_detector.hpp"

namespace sdk = libreyolo::sdk;
using libreyolo::test::PolicyGuard;
using libreyolo::test::relative_difference;

namespace {

torch::nn::Conv2d make_conv(int64_t in, int64_t out, int64_t kernel = 3, int64_t stride = 1, int64_t padding = 1,
                            bool bias = false, int64_t groups = 1) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding).bias(bias).groups(groups));
}

bool refused_for(torch::nn::Conv2d conv, const char* words) {
  const auto refusal = sdk::conv3x3_small_refusal(*conv, torch::randn({1, conv->options.in_channels(), 8, 8}));
  return refusal.find(words) != std::string::npos;
}

}  // namespace

TEST_CASE("small convolutions: the shapes the kernels refuse, and why") {
  CHECK(refused_for(make_conv(16, 16, 1, 1, 0), "not 3x3"));
  CHECK(refused_for(make_conv(16, 16, 3, 2), "strided"));
  CHECK(refused_for(make_conv(16, 16, 3, 1, 0), "padding"));
  CHECK(refused_for(make_conv(16, 16, 3, 1, 1, true), "bias"));
  CHECK(refused_for(make_conv(16, 16, 3, 1, 1, false, 2), "grouped"));
  CHECK(refused_for(make_conv(16, 32), "channels differ"));
  CHECK(refused_for(make_conv(64, 64), "not 16, 24 or 32"));
  // A suitable convolution: the input decides (here: a CPU build, or a CPU tensor).
  const auto refusal = sdk::conv3x3_small_refusal(*make_conv(24, 24), torch::randn({1, 24, 8, 8}));
  CHECK((refusal.find("CUDA") != std::string::npos || refusal.find("no fused CUDA kernels") != std::string::npos));
}

TEST_CASE("small convolutions: a refused input runs the convolution's own forward, bit for bit") {
  const PolicyGuard on(sdk::FusedKernels::when_built, "small_convolutions");
  auto conv = make_conv(16, 16);
  const auto x = torch::randn({2, 16, 9, 11}).contiguous(torch::MemoryFormat::ChannelsLast);
  CHECK(torch::equal(sdk::conv3x3_small(conv, x), conv->forward(x)));
}

TEST_CASE("small convolutions: small_convolutions takes 16 channels, small_convolutions_wide 24 and 32 too") {
  {
    const PolicyGuard measured(sdk::FusedKernels::measured);  // the default since 2026-12-06: 16 only
    CHECK(sdk::conv3x3_small_allowed(16));
    CHECK_FALSE(sdk::conv3x3_small_allowed(24));
    CHECK_FALSE(sdk::conv3x3_small_allowed(32));
  }
  {
    const PolicyGuard narrow(sdk::FusedKernels::when_built, "small_convolutions");
    CHECK(sdk::conv3x3_small_allowed(16));
    CHECK_FALSE(sdk::conv3x3_small_allowed(24));  // cuDNN measured faster there
    CHECK_FALSE(sdk::conv3x3_small_allowed(32));
  }
  {
    const PolicyGuard wide(sdk::FusedKernels::when_built, "small_convolutions_wide");
    for (const int64_t c : {16, 24, 32}) CHECK(sdk::conv3x3_small_allowed(c));
    CHECK_FALSE(sdk::conv3x3_small_allowed(64));
  }
}

namespace {

struct Pass {
  torch::Tensor y, grad_x, grad_w;
};

// One forward + backward of conv on x (a fresh leaf) with `upstream`, the policy as given.
Pass conv_pass(torch::nn::Conv2d& conv, const torch::Tensor& x_in, const torch::Tensor& upstream) {
  auto x = x_in.detach().requires_grad_();
  conv->weight.mutable_grad().reset();
  const auto y = sdk::conv3x3_small(conv, x);
  y.backward(upstream.to(y.scalar_type()));
  return {y.detach().to(torch::kFloat32), x.grad().to(torch::kFloat32), conv->weight.grad().to(torch::kFloat32)};
}

void check_against_cudnn(int64_t channels, int64_t height, int64_t width, bool from_float32, int64_t batch = 3) {
  CAPTURE(channels);
  CAPTURE(height);
  CAPTURE(width);
  CAPTURE(from_float32);
  CAPTURE(batch);
  torch::manual_seed(7);
  auto conv = make_conv(channels, channels);
  conv->to(torch::kCUDA, from_float32 ? torch::kFloat32 : torch::kHalf);
  {
    torch::NoGradGuard no_grad;
    conv->weight.set_data(conv->weight.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  const auto type = from_float32 ? torch::kFloat32 : torch::kHalf;
  const auto x = torch::randn({batch, channels, height, width}, torch::TensorOptions(torch::kCUDA).dtype(type))
                     .contiguous(torch::MemoryFormat::ChannelsLast);
  const auto upstream = torch::randn({batch, channels, height, width}, x.options());
  const auto plan = libreyolo::core::amp::plan_precision(from_float32, "float16", torch::Device(torch::kCUDA), true);
  Pass theirs, ours;
  {
    libreyolo::core::amp::AutocastScope autocast(plan);
    const PolicyGuard off(sdk::FusedKernels::off);
    theirs = conv_pass(conv, x, upstream);
  }
  {
    libreyolo::core::amp::AutocastScope autocast(plan);
    const PolicyGuard on(sdk::FusedKernels::when_built, "small_convolutions_wide");
    REQUIRE(sdk::conv3x3_small_refusal(*conv, x) == "");
    ours = conv_pass(conv, x, upstream);
  }
  CHECK(relative_difference(ours.y, theirs.y) < 4e-3);
  CHECK(relative_difference(ours.grad_x, theirs.grad_x) < 4e-3);
  CHECK(relative_difference(ours.grad_w, theirs.grad_w) < 4e-3);
}

}  // namespace

TEST_CASE("small convolutions on the GPU: output and both gradients within float16 rounding of cuDNN's") {
  if (!libreyolo::test::fused_runnable()) {
    MESSAGE("skipped: no CUDA device or no fused kernels in this build");
    return;
  }
  for (const int64_t channels : {16, 24, 32}) {
    check_against_cudnn(channels, 20, 24, false);
    check_against_cudnn(channels, 13, 7, false);  // a partial last band; rows crossing fragments
    check_against_cudnn(channels, 40, 40, true);  // float32 in, float16 autocast
  }
}

TEST_CASE("small convolutions on the GPU: YOLOv9-t's shapes at 256 pixels, batch 4") {
  if (!libreyolo::test::fused_runnable()) {
    MESSAGE("skipped: no CUDA device or no fused kernels in this build");
    return;
  }
  for (const int64_t channels : {16, 24, 32}) {
    for (const int64_t side : {64, 32, 16, 8}) check_against_cudnn(channels, side, side, true, 4);
  }
}

TEST_CASE("small convolutions on the GPU: a float16 view not 16-byte aligned is refused, with the reason") {
  if (!libreyolo::test::fused_runnable()) {
    MESSAGE("skipped: no CUDA device or no fused kernels in this build");
    return;
  }
  auto conv = make_conv(16, 16);
  conv->to(torch::kCUDA, torch::kHalf);
  const auto x = torch::randn({2, 16, 8, 8}, torch::TensorOptions(torch::kCUDA).dtype(torch::kHalf))
                     .contiguous(torch::MemoryFormat::ChannelsLast);
  const PolicyGuard on(sdk::FusedKernels::when_built, "small_convolutions");
  CHECK(sdk::conv3x3_small_refusal(*conv, x) == "");
  CHECK(sdk::conv3x3_small_refusal(*conv, libreyolo::test::misaligned_copy(x)) == "x's data is not 16-byte aligned");
}

// The whole-network case below needs a network that does not amplify rounding chaotically.
TEST_CASE("rounding against float32: every BatchNorm of YOLOv9-t gets gamma 0.1, nothing else changes") {
  torch::manual_seed(0);
  libreyolo::families::yolo9::Yolo9Detector model("t", 80);
  std::vector<torch::Tensor> before;
  for (const auto& p : model.parameters()) before.push_back(p.detach().clone());
  const int set = libreyolo::test::tame_batch_norms(model);
  CHECK(set > 150);  // about 190 BatchNorm layers
  int gammas = 0, unchanged = 0;
  const auto parameters = model.named_parameters();
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const auto& name = parameters[i].key();
    const bool gamma = name.size() > 10 && name.compare(name.size() - 10, 10, ".bn.weight") == 0;
    if (gamma && torch::all(parameters[i].value() == 0.1f).item<bool>()) ++gammas;
    if (torch::equal(parameters[i].value(), before[i])) ++unchanged;
  }
  CHECK(gammas == set);
  CHECK(unchanged == static_cast<int>(parameters.size()) - set);
}

// The whole network: measured against a float32 pass, as close to it as PyTorch's own float16
// pass is (rounding_against_float32.hpp says how that is judged).
TEST_CASE("small convolutions on the GPU: YOLOv9-t's loss and gradients round like PyTorch's") {
  if (!libreyolo::test::fused_runnable()) {
    MESSAGE("skipped: no CUDA device or no fused kernels in this build");
    return;
  }
  const auto report = libreyolo::test::rounding_against_float32<libreyolo::families::yolo9::Yolo9Detector>(
      "t", {sdk::FusedKernels::when_built, "block_tails"}, {sdk::FusedKernels::when_built, "block_tails+small_convolutions_wide"});
  libreyolo::test::check_rounds_like_pytorch(report);
}

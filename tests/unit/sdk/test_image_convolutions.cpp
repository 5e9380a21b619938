// Image convolutions (image_convolutions.hpp, fused_kernels=image_convolutions): a network's first
// convolution, 3x3 over the image's three channels or over a Focus's twelve, on the SDK's kernels.
// On every build: which convolutions and inputs the kernels refuse and why, that a refusal (every
// CPU input) is the convolution's own forward bit for bit, and that convolve() picks it. On a GPU:
// the output and the weight gradient against cuDNN's under float16 autocast (after a Focus:
// against the concatenated phases convolved), for each output channel count, both strides, odd
// sizes, partial tiles and three image layouts; and YOLOv9-t's and YOLOX-s's training passes with
// and without them within float16 rounding.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/convolutions.hpp>
#include <libreyolo/sdk/fused_kernels.hpp>
#include <libreyolo/sdk/image_convolutions.hpp>

#include <string>

#include "fused_test_support.hpp"
#include "libreyolo/core/amp/precision_plan.hpp"
#include "rounding_against_float32.hpp"
#include "yolo9_detector.hpp"
#include "yolox_detector.hpp"

namespace sdk = libreyolo::sdk;
using libreyolo::test::PolicyGuard;
using libreyolo::test::relative_difference;

namespace {

torch::nn::Conv2d make_conv(int64_t in, int64_t out, int64_t kernel = 3, int64_t stride = 2, int64_t padding = 1,
                            bool bias = false, int64_t groups = 1) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding).bias(bias).groups(groups));
}

bool refused_for(torch::nn::Conv2d conv, const char* words) {
  const auto refusal = sdk::conv3x3_image_refusal(*conv, torch::rand({1, conv->options.in_channels(), 8, 8}));
  return refusal.find(words) != std::string::npos;
}

}  // namespace

TEST_CASE("image convolutions: the shapes the kernels refuse, and why") {
  CHECK(refused_for(make_conv(4, 16), "not 3 input channels"));
  CHECK(refused_for(make_conv(3, 16, 1, 2, 0), "not 3x3"));
  CHECK(refused_for(make_conv(3, 16, 3, 3), "stride"));
  CHECK(refused_for(make_conv(3, 16, 3, 2, 0), "padding"));
  CHECK(refused_for(make_conv(3, 16, 3, 2, 1, true), "bias"));
  CHECK(refused_for(make_conv(3, 24, 3, 2, 1, false, 3), "grouped"));
  CHECK(refused_for(make_conv(3, 24), "not 16, 32 or 64 output channels"));
  // A suitable convolution: the input decides (here: a CPU build, or a CPU tensor).
  for (const int64_t stride : {1, 2}) {
    const auto refusal = sdk::conv3x3_image_refusal(*make_conv(3, 32, 3, stride), torch::rand({1, 3, 8, 8}));
    CHECK((refusal.find("CUDA") != std::string::npos || refusal.find("no fused CUDA kernels") != std::string::npos));
  }
}

TEST_CASE("image convolutions: the Focus's convolutions the kernels refuse, and why") {
  const auto focus_refused_for = [](torch::nn::Conv2d conv, const char* words) {
    return sdk::focus_conv3x3_refusal(*conv, torch::rand({1, 3, 8, 8})).find(words) != std::string::npos;
  };
  CHECK(focus_refused_for(make_conv(3, 32, 3, 1), "not 12 input channels"));
  CHECK(focus_refused_for(make_conv(12, 32, 3, 2), "not stride 1"));
  CHECK(focus_refused_for(make_conv(12, 64, 3, 1), "not 16 or 32 output channels"));
  CHECK(focus_refused_for(make_conv(12, 32, 1, 1, 0), "not 3x3"));
  const auto refusal = sdk::focus_conv3x3_refusal(*make_conv(12, 32, 3, 1), torch::rand({1, 3, 8, 8}));
  CHECK((refusal.find("CUDA") != std::string::npos || refusal.find("no fused CUDA kernels") != std::string::npos));
  // Not chosen: focus_conv3x3 says so (the family composes its Focus instead).
  const PolicyGuard on(sdk::FusedKernels::when_built, "image_convolutions");
  auto conv = make_conv(12, 32, 3, 1);
  CHECK_FALSE(sdk::focus_conv3x3_chosen(*conv, torch::rand({1, 3, 8, 8})));
  CHECK_THROWS_WITH_AS(sdk::focus_conv3x3(conv, torch::rand({1, 3, 8, 8})), doctest::Contains("compose the Focus instead"),
                       c10::Error);
}

TEST_CASE("image convolutions: a refused input runs the convolution's own forward, bit for bit, through convolve too") {
  const PolicyGuard on(sdk::FusedKernels::when_built, "image_convolutions");
  auto conv = make_conv(3, 16);
  const auto x = torch::rand({2, 3, 9, 11}).contiguous(torch::MemoryFormat::ChannelsLast);
  CHECK_FALSE(sdk::conv3x3_image_chosen(*conv, x));
  CHECK(torch::equal(sdk::conv3x3_image(conv, x), conv->forward(x)));
  CHECK(torch::equal(sdk::convolve(conv, x), conv->forward(x)));
}

TEST_CASE("image convolutions: in the default (since 2026-12-07), allowed by their name, not under off") {
  {
    const PolicyGuard measured(sdk::FusedKernels::measured);
    CHECK(sdk::fused_kernel_allowed("image_convolutions"));
  }
  {
    const PolicyGuard off(sdk::FusedKernels::off);
    CHECK_FALSE(sdk::fused_kernel_allowed("image_convolutions"));
  }
  const PolicyGuard named(sdk::FusedKernels::when_built, "image_convolutions");
  CHECK(sdk::fused_kernel_allowed("image_convolutions"));
}

namespace {

struct Pass {
  torch::Tensor y, grad_w;
};

// One forward + backward of conv on the image x (no gradient of its own) with `upstream`, through
// convolve as a family's block calls it.
Pass conv_pass(torch::nn::Conv2d& conv, const torch::Tensor& x, const torch::Tensor& upstream) {
  conv->weight.mutable_grad().reset();
  const auto y = sdk::convolve(conv, x);
  y.backward(upstream.to(y.scalar_type()));
  return {y.detach().to(torch::kFloat32), conv->weight.grad().to(torch::kFloat32)};
}

enum class Layout { float32_channels_last, float32_nchw, float16_channels_last };

torch::Tensor image(int64_t batch, int64_t height, int64_t width, Layout layout) {
  const auto type = layout == Layout::float16_channels_last ? torch::kHalf : torch::kFloat32;
  const auto x = torch::rand({batch, 3, height, width}, torch::TensorOptions(torch::kCUDA).dtype(type));
  return layout == Layout::float32_nchw ? x : x.contiguous(torch::MemoryFormat::ChannelsLast);
}

void check_against_cudnn(int64_t out_channels, int64_t stride, int64_t height, int64_t width, Layout layout,
                         int64_t batch = 3) {
  CAPTURE(out_channels);
  CAPTURE(stride);
  CAPTURE(height);
  CAPTURE(width);
  CAPTURE(static_cast<int>(layout));
  torch::manual_seed(11);
  auto conv = make_conv(3, out_channels, 3, stride);
  conv->to(torch::kCUDA);
  {
    torch::NoGradGuard no_grad;
    conv->weight.set_data(conv->weight.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  const auto x = image(batch, height, width, layout);
  const auto out_height = (height - 1) / stride + 1, out_width = (width - 1) / stride + 1;
  const auto upstream = torch::randn({batch, out_channels, out_height, out_width}, x.options().dtype(torch::kFloat32));
  const auto plan = libreyolo::core::amp::plan_precision(true, "float16", torch::Device(torch::kCUDA), true);
  Pass theirs, ours;
  {
    libreyolo::core::amp::AutocastScope autocast(plan);
    const PolicyGuard off(sdk::FusedKernels::off);
    theirs = conv_pass(conv, x, upstream);
  }
  {
    libreyolo::core::amp::AutocastScope autocast(plan);
    const PolicyGuard on(sdk::FusedKernels::when_built, "image_convolutions");
    REQUIRE(sdk::conv3x3_image_refusal(*conv, x) == "");
    REQUIRE(sdk::conv3x3_image_chosen(*conv, x));
    ours = conv_pass(conv, x, upstream);
  }
  CHECK(ours.y.sizes() == theirs.y.sizes());
  CHECK(relative_difference(ours.y, theirs.y) < 4e-3);
  CHECK(relative_difference(ours.grad_w, theirs.grad_w) < 4e-3);
}

// YOLOX's Focus as the family composes it: the four phases concatenated, then the convolution.
torch::Tensor composed_focus(torch::nn::Conv2d& conv, const torch::Tensor& x) {
  const int64_t h = x.size(2), w = x.size(3);
  const auto top = x.slice(2, 0, h, 2), bottom = x.slice(2, 1, h, 2);
  return conv->forward(
      torch::cat({top.slice(3, 0, w, 2), bottom.slice(3, 0, w, 2), top.slice(3, 1, w, 2), bottom.slice(3, 1, w, 2)}, 1));
}

void check_focus_against_cudnn(int64_t out_channels, int64_t height, int64_t width, Layout layout) {
  CAPTURE(out_channels);
  CAPTURE(height);
  CAPTURE(width);
  CAPTURE(static_cast<int>(layout));
  torch::manual_seed(13);
  auto conv = make_conv(12, out_channels, 3, 1);
  conv->to(torch::kCUDA);
  {
    torch::NoGradGuard no_grad;
    conv->weight.set_data(conv->weight.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  const auto x = image(2, height, width, layout);
  const auto upstream = torch::randn({2, out_channels, height / 2, width / 2}, x.options().dtype(torch::kFloat32));
  const auto plan = libreyolo::core::amp::plan_precision(true, "float16", torch::Device(torch::kCUDA), true);
  const auto pass = [&](bool ours) {
    libreyolo::core::amp::AutocastScope autocast(plan);
    conv->weight.mutable_grad().reset();
    const auto y = ours ? sdk::focus_conv3x3(conv, x) : composed_focus(conv, x);
    y.backward(upstream.to(y.scalar_type()));
    return Pass{y.detach().to(torch::kFloat32), conv->weight.grad().to(torch::kFloat32)};
  };
  const Pass theirs = pass(false);
  const PolicyGuard on(sdk::FusedKernels::when_built, "image_convolutions");
  {
    libreyolo::core::amp::AutocastScope autocast(plan);  // the kernels take float16 work only
    REQUIRE(sdk::focus_conv3x3_refusal(*conv, x) == "");
  }
  const Pass ours = pass(true);
  CHECK(ours.y.sizes() == theirs.y.sizes());
  CHECK(relative_difference(ours.y, theirs.y) < 4e-3);
  CHECK(relative_difference(ours.grad_w, theirs.grad_w) < 4e-3);
}

bool skip_without_kernels() {
  if (libreyolo::test::fused_runnable()) return false;
  MESSAGE("skipped: no CUDA device or no fused kernels in this build");
  return true;
}

}  // namespace

TEST_CASE("image convolutions on the GPU: output and weight gradient within float16 rounding of cuDNN's") {
  if (skip_without_kernels()) return;
  for (const int64_t channels : {16, 32, 64}) {
    for (const int64_t stride : {1, 2}) {
      check_against_cudnn(channels, stride, 20, 24, Layout::float32_channels_last);
      check_against_cudnn(channels, stride, 13, 7, Layout::float32_nchw);           // a partial last tile
      check_against_cudnn(channels, stride, 33, 65, Layout::float16_channels_last);  // odd sides, stride 2's edge
    }
  }
}

TEST_CASE("image convolutions on the GPU: YOLOv9's stem at 640, batch 2 (many tiles, the weight gradient's grid)") {
  if (skip_without_kernels()) return;
  check_against_cudnn(16, 2, 640, 640, Layout::float32_channels_last, 2);
}

TEST_CASE("image convolutions on the GPU: a Focus and its convolution within float16 rounding of the composed ones") {
  if (skip_without_kernels()) return;
  for (const int64_t channels : {16, 32}) {
    check_focus_against_cudnn(channels, 20, 24, Layout::float32_channels_last);
    check_focus_against_cudnn(channels, 14, 6, Layout::float32_nchw);  // a partial tile
    check_focus_against_cudnn(channels, 34, 66, Layout::float16_channels_last);
  }
  check_focus_against_cudnn(32, 640, 640, Layout::float32_channels_last);  // YOLOX-s's stem at 640, batch 2
  // Odd sides are refused (the Focus's phases would differ in size).
  auto conv = make_conv(12, 32, 3, 1);
  conv->to(torch::kCUDA, torch::kHalf);
  const auto odd = torch::rand({1, 3, 9, 8}, torch::TensorOptions(torch::kCUDA).dtype(torch::kHalf));
  CHECK(sdk::focus_conv3x3_refusal(*conv, odd) == "x's sides are not even (a Focus halves them)");
}

TEST_CASE("image convolutions on the GPU: an image that needs a gradient is refused, with the reason") {
  if (skip_without_kernels()) return;
  auto conv = make_conv(3, 16);
  conv->to(torch::kCUDA, torch::kHalf);
  const auto x = torch::rand({2, 3, 8, 8}, torch::TensorOptions(torch::kCUDA).dtype(torch::kHalf));
  const PolicyGuard on(sdk::FusedKernels::when_built, "image_convolutions");
  CHECK(sdk::conv3x3_image_refusal(*conv, x) == "");
  CHECK(sdk::conv3x3_image_refusal(*conv, x.detach().requires_grad_()) ==
        "x needs a gradient (the kernels compute none: an image needs none)");
}

// The whole network: measured against a float32 pass, as close to it as PyTorch's own float16
// pass is (rounding_against_float32.hpp says how that is judged). The images need no gradient, so
// YOLOv9-t's stem takes the kernels.
TEST_CASE("image convolutions on the GPU: YOLOv9-t's loss and gradients round like PyTorch's") {
  if (skip_without_kernels()) return;
  const auto report = libreyolo::test::rounding_against_float32<libreyolo::families::yolo9::Yolo9Detector>(
      "t", {sdk::FusedKernels::when_built, "block_tails"}, {sdk::FusedKernels::when_built, "block_tails+image_convolutions"});
  libreyolo::test::check_rounds_like_pytorch(report);
}

TEST_CASE("image convolutions on the GPU: YOLOX-s's loss and gradients round like PyTorch's, its Focus on the kernels") {
  if (skip_without_kernels()) return;
  const auto report = libreyolo::test::rounding_against_float32<libreyolo::families::yolox::YoloxDetector>(
      "s", {sdk::FusedKernels::when_built, "block_tails"}, {sdk::FusedKernels::when_built, "block_tails+image_convolutions"});
  libreyolo::test::check_rounds_like_pytorch(report);
}

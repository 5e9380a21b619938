// fused_kernels=native_batch_norm (batch_norm.cpp): sdk::BatchNorm2d's training forward on
// PyTorch's own BatchNorm kernels instead of cuDNN's. On every build: the same outputs, input and
// parameter gradients, running statistics and count as the default (on the CPU both are PyTorch's
// kernel), and the same refusal of one value per channel. On a GPU: float16 channels-last input
// with float32 parameters (as under autocast), within float16 rounding of cuDNN's, and off cuDNN
// (the backward node autograd records names the kernels).
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/batch_norm.hpp>

#include <string>

#include "fused_test_support.hpp"

namespace sdk = libreyolo::sdk;
using libreyolo::test::PolicyGuard;

namespace {

struct Trained {
  torch::Tensor y, grad_x, grad_weight, grad_bias, running_mean, running_var, count;
};

// One training forward and backward of a fresh seeded layer on `device`.
Trained train_once(const torch::Tensor& x_in, const torch::Tensor& upstream, const std::string& names) {
  const PolicyGuard policy(names.empty() ? sdk::FusedKernels::off : sdk::FusedKernels::when_built, names);
  torch::manual_seed(11);
  sdk::BatchNorm2d layer(torch::nn::BatchNorm2dOptions(x_in.size(1)).eps(1e-3).momentum(0.03));
  layer->to(x_in.device());
  {
    torch::NoGradGuard no_grad;
    layer->weight.uniform_(0.5, 1.5);
    layer->bias.uniform_(-0.5, 0.5);
  }
  layer->train();
  const auto result = libreyolo::test::forward_backward(x_in, upstream, [&](const torch::Tensor& x) { return layer(x); });
  return {result.y,         result.grad_x, layer->weight.grad(), layer->bias.grad(), layer->running_mean.clone(),
          layer->running_var.clone(), layer->num_batches_tracked.clone()};
}

// A float16 training pass within float16 rounding of another (relative to each result's largest
// magnitude): outputs 2e-3, input gradients 5e-3, parameter gradients 1e-3, running statistics 1e-5.
void check_within_half_rounding(const Trained& got, const Trained& want) {
  using libreyolo::test::relative_difference;
  CHECK((got.y.scalar_type() == torch::kHalf));
  CHECK(relative_difference(got.y, want.y) < 2e-3);
  CHECK(relative_difference(got.grad_x, want.grad_x) < 5e-3);
  CHECK(relative_difference(got.grad_weight, want.grad_weight) < 1e-3);
  CHECK(relative_difference(got.grad_bias, want.grad_bias) < 1e-3);
  CHECK(relative_difference(got.running_mean, want.running_mean) < 1e-5);
  CHECK(relative_difference(got.running_var, want.running_var) < 1e-5);
  CHECK(got.count.item<int64_t>() == 1);
}

// The name of the backward node a training forward under `names` records on x's device.
std::string backward_node(const torch::Tensor& x, const std::string& names) {
  const PolicyGuard policy(names.empty() ? sdk::FusedKernels::off : sdk::FusedKernels::when_built, names);
  sdk::BatchNorm2d layer(torch::nn::BatchNorm2dOptions(x.size(1)).eps(1e-3).momentum(0.03));
  layer->to(x.device());
  layer->train();
  const auto y = layer(x.detach().requires_grad_(true));
  return y.grad_fn() ? y.grad_fn()->name() : std::string("(none)");
}

}  // namespace

TEST_CASE("native BatchNorm: on the CPU the default's outputs, gradients, statistics and count") {
  torch::manual_seed(2);
  for (const bool channels_last : {false, true}) {
    CAPTURE(channels_last);
    auto x = torch::randn({3, 5, 6, 7}) * 2 + 1;
    if (channels_last) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
    const auto upstream = torch::randn({3, 5, 6, 7});
    const auto want = train_once(x, upstream, "");
    const auto got = train_once(x, upstream, "native_batch_norm");
    CHECK(torch::equal(got.y, want.y));
    CHECK(torch::equal(got.grad_x, want.grad_x));
    CHECK(torch::equal(got.grad_weight, want.grad_weight));
    CHECK(torch::equal(got.grad_bias, want.grad_bias));
    CHECK(torch::equal(got.running_mean, want.running_mean));
    CHECK(torch::equal(got.running_var, want.running_var));
    CHECK(got.count.item<int64_t>() == 1);
  }
}

TEST_CASE("native BatchNorm: one value per channel in training is refused as by default") {
  const PolicyGuard policy(sdk::FusedKernels::when_built, "native_batch_norm");
  sdk::BatchNorm2d layer(torch::nn::BatchNorm2dOptions(4).momentum(0.03));
  layer->train();
  CHECK_THROWS_WITH(layer(torch::randn({1, 4, 1, 1})), doctest::Contains("one value per channel in training"));
}

TEST_CASE("native BatchNorm: float16 channels-last on the GPU within float16 rounding of cuDNN's") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  torch::manual_seed(4);
  const auto gpu = torch::TensorOptions().device(torch::kCUDA, 0);
  const auto x = (torch::randn({8, 32, 40, 40}, gpu) * 2 + 1).to(torch::kHalf).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto upstream = torch::randn({8, 32, 40, 40}, gpu).to(torch::kHalf).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto cudnn = train_once(x, upstream, "");
  const auto native = train_once(x, upstream, "native_batch_norm");
  check_within_half_rounding(native, cudnn);
  // That it really left cuDNN: the same values would pass above if both ran cuDNN (they did,
  // unnoticed, until torch::batch_norm's cudnn_enabled argument stopped choosing, 2026-12-06).
  const auto cudnn_node = backward_node(x, "");
  const auto native_node = backward_node(x, "native_batch_norm");
  CAPTURE(cudnn_node);
  CAPTURE(native_node);
  CHECK(cudnn_node.find("Cudnn") != std::string::npos);
  CHECK(native_node.find("NativeBatchNorm") != std::string::npos);
}

// Stacked convolutions (stacked_convolutions.hpp, fused_kernels=stacked_convolutions). On every
// build: a 3x3 and a 1x1 branch (RepConvN's pair) stacked give each branch's bn(conv(x)), their
// gradients, running statistics and step counts, at stride 1 and 2; the statistics come to share
// one storage and find it again after a move; each refusal; the policy; YOLOv9-t trains one pass
// with them to the composed loss and gradients (float64, 1e-9). On a GPU: the same in float64,
// and under float16 autocast (channels-last) the loss within rounding and finite gradients.
#include "../torch_doctest.hpp"
#include "../gpu_training_pass.hpp"
#include "../model_on_gpu.hpp"

#include <libreyolo/sdk/fused_kernels.hpp>
#include <libreyolo/sdk/stacked_convolutions.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "fused_test_support.hpp"
#include "yolo9_detector.hpp"

namespace sdk = libreyolo::sdk;
using libreyolo::test::PolicyGuard;

namespace {

struct Branch {
  torch::nn::Conv2d conv{nullptr};
  sdk::BatchNorm2d bn{nullptr};
  sdk::ConvolutionBranch ref() { return {*conv, *bn}; }
};

Branch branch(int64_t in, int64_t out, int64_t k, int64_t stride, torch::ScalarType dtype) {
  Branch b;
  b.conv = torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).stride(stride).padding(k / 2).bias(false));
  b.bn = sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(out).eps(1e-3).momentum(0.03));
  torch::NoGradGuard no_grad;
  b.bn->weight.uniform_(0.5, 1.5);
  b.bn->bias.uniform_(-0.5, 0.5);
  b.bn->running_mean.uniform_(-0.2, 0.2);
  b.bn->running_var.uniform_(0.5, 2.0);
  b.conv->to(dtype);
  b.bn->to(dtype);
  return b;
}

// A second pair with the first's values (not its tensors).
Branch copy_of(Branch& b) {
  Branch c;
  c.conv = std::dynamic_pointer_cast<torch::nn::Conv2dImpl>(b.conv->clone());
  c.bn = sdk::BatchNorm2d(std::dynamic_pointer_cast<sdk::BatchNorm2dImpl>(b.bn->clone()));
  return c;
}

double largest_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

std::vector<torch::Tensor> leaves(std::vector<Branch>& pair) {
  std::vector<torch::Tensor> all;
  for (auto& b : pair) {
    all.push_back(b.conv->weight);
    all.push_back(b.bn->weight);
    all.push_back(b.bn->bias);
  }
  return all;
}

// One training step of `pair` each way from the same values, compared in float64.
void check_step(std::vector<Branch>& composed, std::vector<Branch>& stacked, const torch::Tensor& x_in) {
  auto x1 = x_in.detach().requires_grad_(), x2 = x_in.detach().requires_grad_();
  std::vector<torch::Tensor> outputs;
  for (auto& b : composed) outputs.push_back(b.bn->forward(b.conv->forward(x1)));
  const auto expected = torch::cat(outputs, 1);
  const auto got = sdk::stacked_convolutions({stacked[0].ref(), stacked[1].ref()}, x2);
  REQUIRE(got.sizes() == expected.sizes());
  CHECK(largest_difference(got, expected) < 1e-10);
  const auto upstream = torch::randn(expected.sizes(), expected.options());
  (expected * upstream).sum().backward();
  (got * upstream).sum().backward();
  CHECK(largest_difference(x2.grad(), x1.grad()) < 1e-10);
  const auto want = leaves(composed), have = leaves(stacked);
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(largest_difference(have[i].grad(), want[i].grad()) < 1e-9);
  }
  for (std::size_t i = 0; i < composed.size(); ++i) {
    CHECK(largest_difference(stacked[i].bn->running_mean, composed[i].bn->running_mean) < 1e-12);
    CHECK(largest_difference(stacked[i].bn->running_var, composed[i].bn->running_var) < 1e-12);
    CHECK(stacked[i].bn->num_batches_tracked.item<int64_t>() == composed[i].bn->num_batches_tracked.item<int64_t>());
  }
  for (auto& p : want) p.mutable_grad().reset();
  for (auto& p : have) p.mutable_grad().reset();
}

bool statistics_share_storage(std::vector<Branch>& pair) {
  const auto& a = pair[0].bn->running_mean;
  const auto& b = pair[1].bn->running_mean;
  return b.storage().is_alias_of(a.storage()) && b.storage_offset() == a.storage_offset() + a.numel();
}

}  // namespace

TEST_CASE("stacked convolutions: a 3x3 and a 1x1 branch give each branch's bn(conv(x)), gradients and statistics") {
  for (const int64_t stride : {1, 2}) {
    CAPTURE(stride);
    torch::manual_seed(7);
    std::vector<Branch> composed{branch(6, 5, 3, stride, torch::kDouble), branch(6, 5, 1, stride, torch::kDouble)};
    std::vector<Branch> stacked{copy_of(composed[0]), copy_of(composed[1])};
    const auto x = torch::randn({3, 6, 9, 11}, torch::kDouble);
    check_step(composed, stacked, x);
    CHECK(statistics_share_storage(stacked));
    check_step(composed, stacked, x * 2 + 1);  // the shared storage keeps moving as the branches' own
    // A move (Module::to) gives each buffer its own storage again: the next call shares it anew.
    for (auto& b : stacked) b.bn->running_mean.set_(b.bn->running_mean.clone());
    CHECK_FALSE(statistics_share_storage(stacked));
    check_step(composed, stacked, x - 1);
    CHECK(statistics_share_storage(stacked));
  }
}

TEST_CASE("stacked convolutions: the refusal names what cannot be stacked") {
  torch::manual_seed(8);
  const auto x = torch::randn({2, 4, 8, 8});
  const auto refusal = [&](std::vector<Branch>& pair, const torch::Tensor& input) {
    return sdk::stacked_convolutions_refusal({pair[0].ref(), pair[1].ref()}, input);
  };
  std::vector<Branch> pair{branch(4, 3, 3, 1, torch::kFloat), branch(4, 3, 1, 1, torch::kFloat)};
  CHECK(refusal(pair, x).empty());
  CHECK(refusal(pair, torch::randn({2, 5, 8, 8})).find("channels") != std::string::npos);
  pair[1].bn->eval();
  CHECK(refusal(pair, x).find("not training") != std::string::npos);
  std::vector<Branch> strides{branch(4, 3, 3, 1, torch::kFloat), branch(4, 3, 1, 2, torch::kFloat)};
  CHECK(refusal(strides, x).find("strides") != std::string::npos);
  std::vector<Branch> biased{branch(4, 3, 3, 1, torch::kFloat), branch(4, 3, 1, 1, torch::kFloat)};
  biased[0].conv = torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 3, 3).padding(1).bias(true));
  CHECK(refusal(biased, x).find("bias") != std::string::npos);
  std::vector<Branch> unpadded{branch(4, 3, 3, 1, torch::kFloat), branch(4, 3, 1, 1, torch::kFloat)};
  unpadded[0].conv = torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 3, 3).padding(0).bias(false));
  CHECK(refusal(unpadded, x).find("keep its size") != std::string::npos);
  std::vector<Branch> cumulative{branch(4, 3, 3, 1, torch::kFloat), branch(4, 3, 1, 1, torch::kFloat)};
  cumulative[1].bn = sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(3).momentum(c10::nullopt));
  CHECK(refusal(cumulative, x).find("momentum") != std::string::npos);
  CHECK_THROWS_AS(sdk::stacked_convolutions({strides[0].ref(), strides[1].ref()}, x), std::invalid_argument);
}

TEST_CASE("stacked convolutions: only when the policy names them") {
  std::vector<Branch> pair{branch(4, 3, 3, 1, torch::kFloat), branch(4, 3, 1, 1, torch::kFloat)};
  const auto x = torch::randn({2, 4, 8, 8});
  {
    const PolicyGuard measured(sdk::FusedKernels::measured);
    CHECK_FALSE(sdk::stacked_convolutions_chosen({pair[0].ref(), pair[1].ref()}, x));
  }
  const PolicyGuard named(sdk::FusedKernels::when_built, "stacked_convolutions");
  CHECK(sdk::stacked_convolutions_chosen({pair[0].ref(), pair[1].ref()}, x));
}

namespace {

// The loss and gradients of one YOLOv9-t pass in float64 on `device`, with the RepConvN pairs
// stacked or not; the largest gradient difference relative to each tensor's largest magnitude.
struct PassDifference {
  double loss = 0, gradients = 0;
};

PassDifference yolo9t_pass_difference(const torch::Device& device) {
  using libreyolo::families::yolo9::Yolo9Detector;
  auto make = [&] {
    torch::manual_seed(0);
    auto model = std::make_shared<Yolo9Detector>("t", 80);
    model->to(device, torch::kDouble);  // float64: the two ways must agree far below float32's rounding
    model->train();
    return model;
  };
  auto reference = make(), model = make();
  torch::manual_seed(1);
  auto images = torch::rand({2, 3, 64, 64}, torch::TensorOptions().dtype(torch::kDouble)).to(device);
  std::vector<torch::Tensor> weights;
  for (const auto& o : reference->forward_capturable(images)) weights.push_back(torch::randn(o.sizes(), images.options()));
  const auto pass = [&](Yolo9Detector& m, const std::string& policy) {
    const PolicyGuard guard(sdk::FusedKernels::when_built, policy);
    torch::Tensor loss = torch::zeros({}, images.options());
    const auto outputs = m.forward_capturable(images);
    for (std::size_t i = 0; i < outputs.size(); ++i) loss = loss + (outputs[i] * weights[i]).sum();
    loss.backward();
    std::vector<torch::Tensor> kept{loss.detach()};
    for (auto& p : m.parameters()) kept.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
    return kept;
  };
  const auto expected = pass(*reference, "block_tails"), got = pass(*model, "stacked_convolutions");
  PassDifference d;
  d.loss = largest_difference(got[0], expected[0]) / std::max(1e-12, expected[0].abs().item<double>());
  for (std::size_t i = 1; i < got.size(); ++i) {
    const double scale = std::max(1e-12, expected[i].abs().max().item<double>());
    d.gradients = std::max(d.gradients, largest_difference(got[i], expected[i]) / scale);
  }
  return d;
}

}  // namespace

TEST_CASE("stacked convolutions: YOLOv9-t's loss and gradients equal the composed ones (float64 on the CPU)") {
  const auto d = yolo9t_pass_difference(torch::kCPU);
  MESSAGE("relative differences: loss " << d.loss << ", gradients " << d.gradients);
  CHECK(d.loss < 1e-12);
  CHECK(d.gradients < 1e-9);
}

TEST_CASE("stacked convolutions: YOLOv9-t's loss and gradients equal the composed ones (float64 on a GPU)") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  const auto d = yolo9t_pass_difference(libreyolo::test::kCudaZero);
  MESSAGE("relative differences: loss " << d.loss << ", gradients " << d.gradients);
  CHECK(d.loss < 1e-12);
  CHECK(d.gradients < 1e-9);
}

// Under float16 autocast (channels-last, as the trainer runs) the two ways differ by rounding that
// no bound on a gradient can separate from a fault at this size: two float16 passes that sum in
// another order met 0.12 of one tensor's largest gradient, and a float16 pass lies 1.04 (one L2
// norm over all gradients) from the float64 pass on the same GPU, at batch 2 and 64 px where the
// deepest BatchNorms normalise 8 values. The float64 case above checks the arithmetic; this one
// that the float16 path runs (weight copies, casts) and keeps the loss and finite gradients.
TEST_CASE("stacked convolutions: YOLOv9-t on a GPU under float16 autocast runs, the loss within rounding") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  using libreyolo::families::yolo9::Yolo9Detector;
  torch::manual_seed(1);
  const auto& gpu = libreyolo::test::kCudaZero;
  const auto images = torch::rand({2, 3, 64, 64}, gpu).contiguous(torch::MemoryFormat::ChannelsLast);
  auto composed = model_on_gpu<Yolo9Detector>("t"), stacked = model_on_gpu<Yolo9Detector>("t");
  const auto weights = libreyolo::test::output_weights(*composed, images);
  auto expected = libreyolo::test::kept_for(*composed), got = libreyolo::test::kept_for(*stacked);
  {
    const PolicyGuard guard(sdk::FusedKernels::when_built, "block_tails");
    libreyolo::test::autocast_pass(*composed, images, weights, expected);
  }
  {
    const PolicyGuard guard(sdk::FusedKernels::when_built, "stacked_convolutions");
    libreyolo::test::autocast_pass(*stacked, images, weights, got);
  }
  const double loss = largest_difference(got[0], expected[0]) / std::max(1e-12, expected[0].abs().item<double>());
  MESSAGE("relative loss difference " << loss);
  CHECK(loss < 1e-3);
  for (std::size_t i = 1; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(torch::isfinite(got[i]).all().item<bool>());
  }
}

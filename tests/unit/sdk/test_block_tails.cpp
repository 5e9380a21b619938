// The block tails (block_tails.hpp, fused_kernels=block_tails). On every build: add_silu,
// silu_add and batch_norm_silu_add are the composed expressions the blocks used before, bit for
// bit, values and gradients, under every policy the CPU can run; the refusal says why the CPU
// composes. On a GPU: each refusal; the fused kernels give the composed ops' outputs and gradients
// bit for bit (float16 and float32, both layouts, counts off the 16-byte vector, misaligned
// views, overflow to infinity, without autograd); YOLOv9-t and YOLOX-s (which use all three)
// train with them to the same loss and gradients bit for bit.
#include "../torch_doctest.hpp"
#include "../deterministic_cudnn.hpp"
#include "../gpu_training_pass.hpp"
#include "../model_on_gpu.hpp"

#include <libreyolo/sdk/block_tails.hpp>
#include <libreyolo/sdk/fused_kernels.hpp>

#include <string>
#include <vector>

#include "fused_test_support.hpp"
#include "model_pass_equality.hpp"
#include "yolo9_detector.hpp"
#include "yolox_detector.hpp"

namespace sdk = libreyolo::sdk;
using libreyolo::test::fused_runnable;
using libreyolo::test::PolicyGuard;

namespace {

struct TwoInputs {
  torch::Tensor y, grad_a, grad_b;
};

// op(a, b) and both gradients for `upstream`, from fresh leaves over the inputs' memory.
template <class Op>
TwoInputs run(const torch::Tensor& a_in, const torch::Tensor& b_in, const torch::Tensor& upstream, Op op) {
  auto a = a_in.detach().requires_grad_();
  auto b = b_in.detach().requires_grad_();
  TwoInputs r;
  r.y = op(a, b);
  r.y.backward(upstream);
  r.grad_a = a.grad();
  r.grad_b = b.grad();
  return r;
}

bool same(const TwoInputs& got, const TwoInputs& want) {
  return libreyolo::test::same_bits(got.y, want.y) && libreyolo::test::same_bits(got.grad_a, want.grad_a) &&
         libreyolo::test::same_bits(got.grad_b, want.grad_b);
}

torch::Tensor composed_add_silu(const torch::Tensor& a, const torch::Tensor& b) { return torch::silu(a + b); }
torch::Tensor composed_silu_add(const torch::Tensor& x, const torch::Tensor& r) { return torch::silu(x) + r; }

sdk::BatchNorm2d batch_norm(int64_t channels) {
  sdk::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(channels).eps(1e-3).momentum(0.03));
  torch::NoGradGuard no_grad;
  bn->weight.uniform_(0.5, 1.5);
  bn->bias.uniform_(-0.5, 0.5);
  return bn;
}

}  // namespace

TEST_CASE("block tails: composed, they are the blocks' former expressions bit for bit on the CPU") {
  torch::manual_seed(41);
  const auto a = torch::randn({2, 6, 5, 7}), b = torch::randn({2, 6, 5, 7}), upstream = torch::randn({2, 6, 5, 7});
  for (const auto policy : {sdk::FusedKernels::off, sdk::FusedKernels::measured, sdk::FusedKernels::when_built}) {
    CAPTURE(static_cast<int>(policy));
    const PolicyGuard guard(policy);
    CHECK(same(run(a, b, upstream, sdk::add_silu), run(a, b, upstream, composed_add_silu)));
    CHECK(same(run(a, b, upstream, sdk::silu_add), run(a, b, upstream, composed_silu_add)));
  }
  const auto why = sdk::block_tail_refusal(a, b);
  CHECK((why == "this build has no fused CUDA kernels" || why == "the tensors are not on one CUDA device"));
}

TEST_CASE("block tails: batch_norm_silu_add is silu(bn(x)) + residual, gradients and running statistics too") {
  torch::manual_seed(42);
  const auto x = torch::randn({3, 4, 6, 6}), residual = torch::randn({3, 4, 6, 6}), upstream = torch::randn({3, 4, 6, 6});
  auto bn_want = batch_norm(4), bn_got = batch_norm(4);
  bn_got->weight.data().copy_(bn_want->weight.data());
  bn_got->bias.data().copy_(bn_want->bias.data());
  const PolicyGuard guard(sdk::FusedKernels::when_built);
  const auto want = run(x, residual, upstream, [&](const torch::Tensor& p, const torch::Tensor& r) {
    return torch::silu(bn_want->forward(p)) + r;
  });
  const auto got = run(x, residual, upstream, [&](const torch::Tensor& p, const torch::Tensor& r) {
    return sdk::batch_norm_silu_add(bn_got, p, r);
  });
  CHECK(same(got, want));
  CHECK(torch::equal(bn_got->weight.grad(), bn_want->weight.grad()));
  CHECK(torch::equal(bn_got->bias.grad(), bn_want->bias.grad()));
  CHECK(torch::equal(bn_got->running_mean, bn_want->running_mean));
  CHECK(torch::equal(bn_got->running_var, bn_want->running_var));
  CHECK(torch::equal(bn_got->num_batches_tracked, bn_want->num_batches_tracked));
}

TEST_CASE("block tails: the refusal names what the fused kernels do not take") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto cuda = torch::TensorOptions().device(torch::kCUDA);
  const auto x = torch::zeros({2, 8, 4, 4}, cuda);
  CHECK(sdk::block_tail_refusal(x, x).empty());
  CHECK(sdk::block_tail_refusal(x, x.cpu()) == "the tensors are not on one CUDA device");
  CHECK(sdk::block_tail_refusal(x.to(torch::kFloat64), x.to(torch::kFloat64)) == "the kernels take float16 or float32");
  CHECK(sdk::block_tail_refusal(x, x.to(torch::kHalf)) == "the tensors' types differ (the composed ops promote)");
  CHECK(sdk::block_tail_refusal(x, x.narrow(3, 0, 1)) == "the tensors' shapes differ (the composed ops broadcast)");
  CHECK(sdk::block_tail_refusal(x.narrow(0, 0, 0), x.narrow(0, 0, 0)) == "the tensors are empty");
  CHECK(sdk::block_tail_refusal(x, x.contiguous(torch::MemoryFormat::ChannelsLast)) ==
        "the tensors are not dense in one layout");
  const auto strided = torch::zeros({2, 8, 4, 8}, cuda).narrow(3, 0, 4);
  CHECK(sdk::block_tail_refusal(strided, strided) == "the tensors are not dense in one layout");
}

namespace {

// The fused tails against the composed ops on one input setting; `scale` widens the values (at
// 3e4 float16 sums overflow to infinity, and silu(-large) underflows).
void check_fused(const std::vector<int64_t>& shape, torch::Dtype dtype, bool channels_last, bool misaligned,
                 double scale) {
  INFO("shape ", torch::IntArrayRef(shape), ", ", dtype, channels_last ? ", channels-last" : ", NCHW",
       misaligned ? ", misaligned" : "", ", scale ", scale);
  const auto format = channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
  const auto make = [&](double s) {
    const auto dense = (torch::randn(shape) * s).to(torch::kCUDA, dtype).contiguous(format);
    return misaligned ? libreyolo::test::misaligned_copy(dense) : dense;
  };
  const auto a = make(scale), b = make(scale), upstream = make(1.0);
  const auto want_add_silu = run(a, b, upstream, composed_add_silu);
  const auto want_silu_add = run(a, b, upstream, composed_silu_add);
  const PolicyGuard on(sdk::FusedKernels::when_built, "block_tails");
  REQUIRE(sdk::block_tail_refusal(a, b).empty());
  const auto got_add_silu = run(a, b, upstream, sdk::add_silu);
  CHECK(got_add_silu.y.strides() == a.strides());
  CHECK(same(got_add_silu, want_add_silu));
  CHECK(same(run(a, b, upstream, sdk::silu_add), want_silu_add));
  torch::NoGradGuard no_grad;  // without autograd the sum is not kept; the output is the same
  CHECK(libreyolo::test::same_bits(sdk::add_silu(a, b), want_add_silu.y));
  CHECK(libreyolo::test::same_bits(sdk::silu_add(a, b), want_silu_add.y));
}

}  // namespace

TEST_CASE("block tails: the fused kernels give the composed ops' outputs and gradients bit for bit") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(43);
  // Counts on and off the 16-byte vector (8 float16, 4 float32 elements).
  const std::vector<std::vector<int64_t>> shapes = {{1, 1, 1, 1}, {2, 3, 5, 7}, {4, 32, 16, 12}, {16, 64, 40, 40}};
  for (const auto dtype : {torch::kFloat16, torch::kFloat32})
    for (const auto& shape : shapes)
      for (const bool channels_last : {true, false}) check_fused(shape, dtype, channels_last, false, 4.0);
  check_fused({4, 32, 16, 12}, torch::kFloat16, true, true, 4.0);
  check_fused({4, 32, 16, 12}, torch::kFloat32, false, true, 4.0);
  check_fused({4, 32, 16, 12}, torch::kFloat16, true, false, 3e4);
}

namespace {

template <typename Detector>
void check_model_equal(const std::string& size) {
  libreyolo::test::check_passes_equal<Detector>(size, {sdk::FusedKernels::off, ""},
                                                {sdk::FusedKernels::when_built, "block_tails"}, 2);
}

}  // namespace

TEST_CASE("block tails: YOLOv9-t's loss and gradients with the fused tails equal the composed ones bit for bit") {
  if (!fused_runnable()) return;
  check_model_equal<libreyolo::families::yolo9::Yolo9Detector>("t");
}

TEST_CASE("block tails: YOLOX-s's loss and gradients with the fused tails equal the composed ones bit for bit") {
  if (!fused_runnable()) return;
  check_model_equal<libreyolo::families::yolox::YoloxDetector>("s");
}

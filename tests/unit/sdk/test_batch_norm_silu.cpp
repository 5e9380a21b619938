// sdk::batch_norm_silu (batch_norm_silu.hpp): the composed path is torch::silu(bn->forward(x))
// bit for bit (output, running statistics, step count, gradients), fused_kernels=auto falls back
// to it bit for bit on the CPU, the refusal names why; and on a CUDA machine the fused kernel
// against the composed ops in float64 (float32 within 1e-5 of each tensor's largest magnitude,
// float16 outputs within 2e-3), channels-last and NCHW, and the same bits run after run.
#include "../torch_doctest.hpp"

#include <memory>
#include <string>
#include <vector>

#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/batch_norm_silu.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"

namespace sdk = libreyolo::sdk;

namespace {

struct PolicyGuard {  // the policy is process-wide: leave it as found (tests set no `only` list)
  sdk::FusedKernels before = sdk::fused_kernels();
  explicit PolicyGuard(sdk::FusedKernels policy, const std::string& only = "") { sdk::set_fused_kernels(policy, only); }
  ~PolicyGuard() { sdk::set_fused_kernels(before); }
};

// The YOLO blocks' BatchNorm (eps 1e-3, momentum 0.03) with weight, bias and running statistics
// away from their initial values, so that every one of them shows in the result.
sdk::BatchNorm2d layer(int64_t channels) {
  sdk::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(channels).eps(1e-3).momentum(0.03));
  torch::NoGradGuard no_grad;
  bn->weight.copy_(torch::rand({channels}) + 0.5);
  bn->bias.copy_(torch::randn({channels}));
  bn->running_mean.copy_(torch::randn({channels}));
  bn->running_var.copy_(torch::rand({channels}) + 0.5);
  return bn;
}

sdk::BatchNorm2d copy_of(const sdk::BatchNorm2d& bn, torch::Device device, torch::Dtype dtype) {
  auto copy = sdk::BatchNorm2d(std::dynamic_pointer_cast<sdk::BatchNorm2dImpl>(bn->clone(device)));
  copy->to(dtype);
  return copy;
}

// A mean far from zero against the deviation: a plain float32 sum of squares would cancel.
torch::Tensor input(const std::vector<int64_t>& shape) { return torch::randn(shape) * 1.5 + 4.0; }

struct Result {
  torch::Tensor y, grad_x, grad_weight, grad_bias, running_mean, running_var, steps;
};

// One training forward and backward through `f`, x a fresh leaf.
template <class F>
Result step(sdk::BatchNorm2d& bn, const torch::Tensor& x_in, const torch::Tensor& upstream, F f) {
  auto x = x_in.detach().requires_grad_();  // a fresh leaf over the same memory (alignment kept)
  bn->zero_grad();
  const auto y = f(bn, x);
  y.backward(upstream);
  return {y.detach(), x.grad(), bn->weight.grad(), bn->bias.grad(), bn->running_mean.clone(),
          bn->running_var.clone(), bn->num_batches_tracked.clone()};
}

torch::Tensor by_hand(sdk::BatchNorm2d& bn, const torch::Tensor& x) { return torch::silu(bn->forward(x)); }
torch::Tensor through_sdk(sdk::BatchNorm2d& bn, const torch::Tensor& x) { return sdk::batch_norm_silu(bn, x); }

void check_identical(const Result& a, const Result& b) {
  CHECK(torch::equal(a.y, b.y));
  CHECK(torch::equal(a.grad_x, b.grad_x));
  CHECK(torch::equal(a.grad_weight, b.grad_weight));
  CHECK(torch::equal(a.grad_bias, b.grad_bias));
  CHECK(torch::equal(a.running_mean, b.running_mean));
  CHECK(torch::equal(a.running_var, b.running_var));
  CHECK(torch::equal(a.steps, b.steps));
}

}  // namespace

TEST_CASE("batch_norm_silu with fused_kernels=off is silu(bn(x)) bit for bit, running statistics too") {
  torch::manual_seed(7);
  const auto bn = layer(5);
  const auto x = input({3, 5, 6, 7});
  const auto upstream = torch::randn({3, 5, 6, 7});
  const PolicyGuard off(sdk::FusedKernels::off);
  for (const bool channels_last : {false, true}) {
    const auto xi = channels_last ? x.contiguous(torch::MemoryFormat::ChannelsLast) : x;
    auto mine = copy_of(bn, torch::kCPU, torch::kFloat32), theirs = copy_of(bn, torch::kCPU, torch::kFloat32);
    const auto want = step(theirs, xi, upstream, by_hand);
    const auto got = step(mine, xi, upstream, through_sdk);
    check_identical(got, want);
    CHECK(got.steps.item<int64_t>() == 1);
  }
}

TEST_CASE("batch_norm_silu in evaluation mode uses the running statistics as bn does") {
  torch::manual_seed(8);
  auto bn = layer(4);
  bn->eval();
  const auto x = input({2, 4, 3, 3});
  const PolicyGuard on(sdk::FusedKernels::when_built);
  torch::NoGradGuard no_grad;
  CHECK(torch::equal(sdk::batch_norm_silu(bn, x), torch::silu(bn->forward(x))));
}

TEST_CASE("batch_norm_silu with fused_kernels=auto falls back to the composed ops on the CPU, bit for bit") {
  torch::manual_seed(9);
  const auto bn = layer(6);
  const auto x = input({2, 6, 5, 4});
  const auto upstream = torch::randn({2, 6, 5, 4});
  for (const bool channels_last : {false, true}) {
    const auto xi = channels_last ? x.contiguous(torch::MemoryFormat::ChannelsLast) : x;
    auto off_layer = copy_of(bn, torch::kCPU, torch::kFloat32), auto_layer = copy_of(bn, torch::kCPU, torch::kFloat32);
    Result off, chosen;
    {
      const PolicyGuard guard(sdk::FusedKernels::off);
      off = step(off_layer, xi, upstream, through_sdk);
    }
    {
      const PolicyGuard guard(sdk::FusedKernels::when_built);
      chosen = step(auto_layer, xi, upstream, through_sdk);
    }
    check_identical(chosen, off);
  }
}

namespace {

struct NoSynchronizer : sdk::BatchNormSynchronizer {  // never called: only makes the layer synchronised
  torch::Tensor forward(torch::nn::BatchNorm2dImpl&, const torch::Tensor& input) override { return input; }
};

void expect(const std::string& refusal, const std::string& part) {
  const auto message = "refusal: " + refusal;
  CHECK_MESSAGE(refusal.find(part) != std::string::npos, message);
}

}  // namespace

TEST_CASE("batch_norm_silu_kernel names what runs: composed whenever the policy or the inputs refuse") {
  const auto bn = layer(8);
  const auto x = input({2, 8, 5, 4}).contiguous(torch::MemoryFormat::ChannelsLast);
  for (const char* only :
       {"", "batch_norm_silu", "batch_norm_silu_cluster", "batch_norm_silu_large", "cudnn_batch_norm_silu"}) {
    const PolicyGuard on(sdk::FusedKernels::when_built, only);
    CHECK(sdk::batch_norm_silu_kernel(*bn, x) == "composed");  // a CPU tensor
  }
  const PolicyGuard off(sdk::FusedKernels::off);
  CHECK(sdk::batch_norm_silu_kernel(*bn, x) == "composed");
  if (!torch::cuda::is_available()) CHECK_FALSE(sdk::batch_norm_silu_cluster_runnable());
}

TEST_CASE("batch_norm_silu_refusal names what the fused kernel does not take") {
  const auto x = torch::randn({2, 4, 3, 3});
  const auto refusal = [&](const torch::nn::BatchNorm2dOptions& options, const torch::Tensor& in) {
    sdk::BatchNorm2d bn(options);
    return sdk::batch_norm_silu_refusal(*bn, in);
  };
  const auto options = torch::nn::BatchNorm2dOptions(4).momentum(0.03);
  expect(refusal(torch::nn::BatchNorm2dOptions(4).track_running_stats(false), x), "running statistics");
  expect(refusal(torch::nn::BatchNorm2dOptions(4).affine(false), x), "affine=false");
  expect(refusal(torch::nn::BatchNorm2dOptions(4).momentum(c10::nullopt), x), "momentum is None");
  expect(refusal(options, x.to(torch::kFloat64)), "4-D float16 or float32");
  expect(refusal(options, x.flatten(2)), "4-D float16 or float32");
  expect(refusal(options, x.transpose(2, 3)), "neither contiguous NCHW nor channels-last");
  expect(refusal(options, torch::randn({1, 4, 1, 1})), "one value per channel");
  expect(refusal(torch::nn::BatchNorm2dOptions(5).momentum(0.03), torch::randn({2, 5, 3, 3}).narrow(1, 0, 4)),
             "channels are not the BatchNorm's");
  {
    sdk::BatchNorm2d bn(options);
    bn->eval();
    expect(sdk::batch_norm_silu_refusal(*bn, x), "evaluation mode");
    bn->train();
    bn->set_synchronizer(std::make_shared<NoSynchronizer>());
    expect(sdk::batch_norm_silu_refusal(*bn, x), "synchronised across GPUs");
    bn->set_synchronizer(nullptr);
    bn->to(torch::kFloat64);
    expect(sdk::batch_norm_silu_refusal(*bn, x), "not contiguous float32");
  }
  // Everything else suits: what is left is where it runs.
  const auto left = refusal(options, x);
  if (sdk::fused_kernels_built())
    CHECK(left == "x is not on a CUDA device");
  else
    CHECK(left == "this build has no fused CUDA kernels");
  CHECK(refusal(options, x.contiguous(torch::MemoryFormat::ChannelsLast)) == left);
  CHECK(refusal(options, x.to(torch::kFloat16)) == left);
}

// ---- On a CUDA machine: the fused kernel against the composed ops ----

namespace {

bool fused_runnable() { return torch::cuda::is_available() && sdk::fused_kernels_built(); }

// Largest difference relative to the reference's largest magnitude (1 where that is below 1).
double relative(const torch::Tensor& got, const torch::Tensor& want) {
  const auto g = got.cpu().to(torch::kFloat64), w = want.cpu().to(torch::kFloat64);
  return (g - w).abs().max().item<double>() / std::max(1.0, w.abs().max().item<double>());
}

struct Tolerance {
  double out, grad_x, grad_affine, running;
};

// x's values in a copy whose first element sits one element past a 16-byte boundary (same
// layout): the kernels must notice and take their one-element accesses.
torch::Tensor misaligned_copy(const torch::Tensor& x) {
  const auto buffer = torch::empty({x.numel() + 1}, x.options());
  auto view = buffer.as_strided(x.sizes(), x.strides(), /*storage_offset=*/1);
  view.copy_(x);
  return view;
}

// The fused kernel on CUDA (x in dtype, in the layout asked) against the composed ops in float64
// on the same values; then the same fused step again, which must give the same bits. `only`: the
// kernels the policy allows ("" every one), `kernel`: what batch_norm_silu_kernel must say runs.
void check_fused(const std::vector<int64_t>& shape, torch::Dtype dtype, bool channels_last, const Tolerance& tol,
                 bool misaligned = false, const std::string& only = "batch_norm_silu",
                 const std::string& kernel = "three_launch") {
  INFO("shape ", torch::IntArrayRef(shape), ", ", dtype, channels_last ? ", channels-last" : ", NCHW",
       misaligned ? ", misaligned" : "", ", ", only);
  const auto bn = layer(shape[1]);
  const auto x = input(shape).to(dtype);  // the reference gets the same (rounded) values
  const auto upstream = torch::randn(shape).to(dtype);
  Result want, got, again;
  {
    const PolicyGuard off(sdk::FusedKernels::off);
    auto reference = copy_of(bn, torch::kCUDA, torch::kFloat64);
    want = step(reference, x.to(torch::kCUDA, torch::kFloat64), upstream.to(torch::kCUDA, torch::kFloat64), by_hand);
  }
  const auto format = channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
  const auto dense = x.to(torch::kCUDA).contiguous(format);
  const auto x_cuda = misaligned ? misaligned_copy(dense) : dense;
  const PolicyGuard on(sdk::FusedKernels::when_built, only);
  auto fused = copy_of(bn, torch::kCUDA, torch::kFloat32), repeat = copy_of(bn, torch::kCUDA, torch::kFloat32);
  REQUIRE(sdk::batch_norm_silu_refusal(*fused, x_cuda).empty());
  REQUIRE(sdk::batch_norm_silu_kernel(*fused, x_cuda) == kernel);
  got = step(fused, x_cuda, upstream.to(torch::kCUDA), through_sdk);
  again = step(repeat, x_cuda, upstream.to(torch::kCUDA), through_sdk);
  CHECK((got.y.scalar_type() == dtype));
  CHECK(got.y.is_contiguous(format));
  CHECK(relative(got.y, want.y) < tol.out);
  CHECK(relative(got.grad_x, want.grad_x) < tol.grad_x);
  CHECK(relative(got.grad_weight, want.grad_weight) < tol.grad_affine);
  CHECK(relative(got.grad_bias, want.grad_bias) < tol.grad_affine);
  CHECK(relative(got.running_mean, want.running_mean) < tol.running);
  CHECK(relative(got.running_var, want.running_var) < tol.running);
  CHECK(torch::equal(got.steps.cpu(), want.steps.cpu()));
  check_identical(again, got);  // no atomics: the same bits every run
}

// Small and odd sizes: C below, at and above 32, above a 256-channel tile of one-element accesses
// (300 float16) and of 16-byte ones (2056), C not a multiple of 8 (5, 3, 300), planes of 1 x 2 up.
const std::vector<std::vector<int64_t>> kShapes = {
    {2, 5, 3, 7}, {4, 32, 8, 8}, {3, 48, 9, 11}, {2, 96, 5, 5}, {2, 300, 4, 3}, {1, 3, 1, 2}, {16, 16, 20, 20},
    {2, 2056, 2, 3}};

}  // namespace

TEST_CASE("the fused BatchNorm + SiLU equals the composed ops in float32 within 1e-5") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(21);
  for (const auto& shape : kShapes)
    for (const bool channels_last : {true, false})
      check_fused(shape, torch::kFloat32, channels_last, {1e-5, 1e-5, 1e-5, 1e-5});
  check_fused({4, 32, 8, 8}, torch::kFloat32, /*channels_last=*/true, {1e-5, 1e-5, 1e-5, 1e-5}, /*misaligned=*/true);
}

TEST_CASE("the fused BatchNorm + SiLU equals the composed ops in float16 within 2e-3") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(22);
  // Outputs and grad_x are rounded to float16 once; statistics and sums stay float32.
  for (const auto& shape : kShapes)
    for (const bool channels_last : {true, false})
      check_fused(shape, torch::kFloat16, channels_last, {2e-3, 2e-3, 1e-4, 1e-5});
  check_fused({4, 32, 8, 8}, torch::kFloat16, /*channels_last=*/true, {2e-3, 2e-3, 1e-4, 1e-5}, /*misaligned=*/true);
}

// The one-launch cluster kernels (batch_norm_silu_cluster) take channels-last, 16-byte aligned
// activations with C a multiple of 8 (float16) or 4 (float32) and at most 131,072 positions: from
// one block a cluster to eight, one tile to 257, YOLOv9-t's 40 x 40 and 80 x 80 maps at batch 16.
const std::vector<std::vector<int64_t>> kClusterShapes = {
    {4, 32, 8, 8}, {2, 96, 5, 5}, {16, 16, 20, 20}, {2, 2056, 2, 3}, {16, 64, 40, 40}, {8, 128, 20, 20},
    {16, 64, 80, 80}};

TEST_CASE("the one-launch cluster BatchNorm + SiLU equals the composed ops (float32 1e-5, float16 2e-3)") {
  if (!fused_runnable() || !sdk::batch_norm_silu_cluster_runnable()) {
    MESSAGE("skipped: needs a CUDA device of compute capability 9.0 and a build with the fused kernels");
    return;
  }
  torch::manual_seed(23);
  for (const auto& shape : kClusterShapes) {
    check_fused(shape, torch::kFloat32, true, {1e-5, 1e-5, 1e-5, 1e-5}, false, "batch_norm_silu_cluster", "cluster");
    check_fused(shape, torch::kFloat16, true, {2e-3, 2e-3, 1e-4, 1e-5}, false, "batch_norm_silu_cluster", "cluster");
  }
  // With both of our kernel sets allowed the cluster kernels take what fits ...
  const std::string ours = "batch_norm_silu+batch_norm_silu_cluster";
  check_fused({16, 64, 40, 40}, torch::kFloat16, true, {2e-3, 2e-3, 1e-4, 1e-5}, false, ours, "cluster");
  // ... and the three-launch kernels the rest: NCHW, misaligned, C not a multiple of 8, too many rows.
  check_fused({16, 64, 40, 40}, torch::kFloat16, false, {2e-3, 2e-3, 1e-4, 1e-5}, false, ours, "three_launch");
  check_fused({4, 32, 8, 8}, torch::kFloat16, true, {2e-3, 2e-3, 1e-4, 1e-5}, true, ours, "three_launch");
  check_fused({3, 48, 9, 11}, torch::kFloat32, true, {1e-5, 1e-5, 1e-5, 1e-5}, false, ours, "cluster");
  check_fused({2, 300, 4, 3}, torch::kFloat16, true, {2e-3, 2e-3, 1e-4, 1e-5}, false, ours, "three_launch");
  check_fused({8, 16, 160, 160}, torch::kFloat16, true, {2e-3, 2e-3, 1e-4, 1e-5}, false, ours, "three_launch");
  // With every kernel allowed (auto) cuDNN's BatchNorm + SWISH takes what it takes (channels-last,
  // aligned float16 below 2^20 positions), ours the rest.
  check_fused({16, 64, 40, 40}, torch::kFloat16, true, {2e-3, 2e-3, 1e-3, 1e-5}, false, "", "cudnn_silu");
  check_fused({3, 48, 9, 11}, torch::kFloat32, true, {1e-5, 1e-5, 1e-5, 1e-5}, false, "", "cluster");
  check_fused({16, 64, 40, 40}, torch::kFloat16, false, {2e-3, 2e-3, 1e-4, 1e-5}, false, "", "three_launch");
}

TEST_CASE("with only the cluster kernels allowed, what they do not take runs composed") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const PolicyGuard on(sdk::FusedKernels::when_built, "batch_norm_silu_cluster");
  const auto bn = copy_of(layer(16), torch::kCUDA, torch::kFloat32);
  const auto large = torch::randn({8, 16, 160, 160}, torch::device(torch::kCUDA).dtype(torch::kFloat16))
                         .contiguous(torch::MemoryFormat::ChannelsLast);
  CHECK(sdk::batch_norm_silu_kernel(*bn, large) == "composed");
  CHECK(sdk::batch_norm_silu_kernel(*bn, large.contiguous()) == "composed");
}

TEST_CASE("batch_norm_silu_large runs the three-launch kernels from 2^20 positions up, composed ops below") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const PolicyGuard on(sdk::FusedKernels::when_built, "batch_norm_silu_large");
  const auto bn = copy_of(layer(8), torch::kCUDA, torch::kFloat32);
  const auto opts = torch::device(torch::kCUDA).dtype(torch::kFloat16);
  const auto at_limit = torch::randn({4, 8, 512, 512}, opts).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto below = torch::randn({4, 8, 512, 511}, opts).contiguous(torch::MemoryFormat::ChannelsLast);
  CHECK(sdk::batch_norm_silu_kernel(*bn, at_limit) == "three_launch");
  CHECK(sdk::batch_norm_silu_kernel(*bn, at_limit.contiguous()) == "three_launch");
  CHECK(sdk::batch_norm_silu_kernel(*bn, below) == "composed");
  torch::manual_seed(24);
  check_fused({4, 8, 512, 512}, torch::kFloat16, true, {2e-3, 2e-3, 1e-4, 1e-5}, false, "batch_norm_silu_large");
}

TEST_CASE("cudnn_batch_norm_silu: cuDNN's BatchNorm + SWISH forward and our SiLU gradient equal the composed ops") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(25);
  // The weight's and bias's gradients are cuDNN's float32 sums of a float16 g (our SiLU pass
  // writes it in x's type, as PyTorch's silu_backward does on the composed path), so they carry
  // float16's rounding: 1.5-5e-4 of their largest magnitude in the first GPU run, where our own
  // kernels, which keep g in float32, stay within 1e-4.
  const Tolerance half{2e-3, 2e-3, 1e-3, 1e-5};
  // YOLOv9-t's small maps, C not a multiple of 8 (5, 300), one 8-channel vector per row (8).
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{
           {16, 64, 40, 40}, {16, 32, 80, 80}, {16, 128, 20, 20}, {2, 5, 3, 7}, {2, 300, 4, 3}, {4, 8, 6, 6}})
    check_fused(shape, torch::kFloat16, true, half, false, "cudnn_batch_norm_silu", "cudnn_silu");
}

TEST_CASE("cudnn_batch_norm_silu leaves what cuDNN's fused path does not take to the composed ops") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const PolicyGuard on(sdk::FusedKernels::when_built, "cudnn_batch_norm_silu");
  auto bn = copy_of(layer(8), torch::kCUDA, torch::kFloat32);
  const auto opts = torch::device(torch::kCUDA).dtype(torch::kFloat16);
  const auto x = torch::randn({4, 8, 16, 16}, opts).contiguous(torch::MemoryFormat::ChannelsLast);
  CHECK(sdk::batch_norm_silu_kernel(*bn, x) == "cudnn_silu");
  CHECK(sdk::batch_norm_silu_kernel(*bn, x.contiguous()) == "composed");                  // NCHW
  CHECK(sdk::batch_norm_silu_kernel(*bn, x.to(torch::kFloat32)) == "composed");           // float32
  CHECK(sdk::batch_norm_silu_kernel(*bn, misaligned_copy(x)) == "composed");              // off 16 bytes
  const auto at_limit = torch::randn({4, 8, 512, 512}, opts).contiguous(torch::MemoryFormat::ChannelsLast);
  CHECK(sdk::batch_norm_silu_kernel(*bn, at_limit) == "composed");                        // 2^20 positions
  bn->eval();
  CHECK(sdk::batch_norm_silu_kernel(*bn, x) == "composed");
}

// sdk::losses::class_bce_sum (class_bce.hpp): composed, it is the criteria's former expressions
// bit for bit (YOLOv9's BCE over every anchor, YOLOX's over the foreground), and the CPU refuses
// the kernels saying why. The fused kernels' per-anchor code (class_bce_device.cuh) runs on the
// CPU here against the composed ops and their autograd, with and without counted rows, on logits
// laid out as the criteria's (a transposed, narrowed view) and logits large enough to saturate the
// sigmoid: the sum and every gradient within float32 rounding. On a CUDA machine: every refusal,
// and the kernels themselves against the composed ops within the same tolerance.
#include "../torch_doctest.hpp"

#include <string>

#include "../../../sdk/src/cuda/class_bce_device.cuh"  // the fused kernels' code, for the host
#include "fused_test_support.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/losses/class_bce.hpp"

namespace losses = libreyolo::sdk::losses;
namespace sdk = libreyolo::sdk;
namespace fused = libreyolo::sdk::fused;

namespace {

using libreyolo::test::fused_runnable;
using libreyolo::test::PolicyGuard;
using libreyolo::test::relative_difference;

constexpr int64_t kClasses = 7;
constexpr float kUpstream = 0.6f;

// The head's raw [B, 4 + C, A] output (a leaf), the class logits its transposed, narrowed view; a
// third of the anchors foreground with a class and a quality; logits up to +-30.
struct Case {
  torch::Tensor raw, labels, quality, foreground;
  torch::Tensor logits() const { return raw.transpose(1, 2).narrow(2, 4, kClasses); }
  torch::Tensor dense_target() const {
    const auto ids = torch::arange(kClasses, labels.options());
    return (labels.unsqueeze(2) == ids).to(torch::kFloat32) * quality.unsqueeze(2);
  }
};

Case make_case(int64_t batch, int64_t anchors, torch::Device device) {
  Case c;
  c.foreground = (torch::rand({batch, anchors}) < 0.33).to(device);
  c.labels = torch::randint(kClasses, {batch, anchors}, torch::kLong).to(device);
  c.quality = torch::where(c.foreground.cpu(), torch::rand({batch, anchors}), torch::zeros({})).to(device);
  c.raw = (torch::randn({batch, 4 + kClasses, anchors}) * 10.0).clamp(-30, 30).to(device).requires_grad_();
  return c;
}

struct Result {
  torch::Tensor sum, grad;  // grad: d(0.6 sum) / d logits
};

Result through_sdk(const Case& c, bool foreground_only) {
  if (c.raw.grad().defined()) c.raw.mutable_grad().reset();
  const auto target = [&] { return c.dense_target(); };
  const losses::ClassBceInputs in{c.logits(), c.labels, c.quality, foreground_only ? c.foreground : torch::Tensor(),
                                  target};
  const auto sum = losses::class_bce_sum(in);
  (sum * kUpstream).backward();
  return {sum.detach(), c.raw.grad().transpose(1, 2).narrow(2, 4, kClasses)};
}

Result kernel_code_on_host(const Case& c, bool foreground_only) {
  const auto logits = c.logits().detach();
  fused::ClassBceShape s;
  s.batch = logits.size(0);
  s.anchors = logits.size(1);
  s.classes = kClasses;
  auto grad = torch::empty({s.batch, kClasses, s.anchors}).transpose(1, 2);
  for (int d = 0; d < 3; ++d) s.logit_stride[d] = logits.stride(d), s.grad_stride[d] = grad.stride(d);
  fused::ClassBceBuffers in;
  in.logits = logits.data_ptr<float>();
  in.labels = c.labels.data_ptr<int64_t>();
  in.quality = c.quality.data_ptr<float>();
  const auto rows = c.foreground.contiguous();
  in.rows = foreground_only ? rows.data_ptr<bool>() : nullptr;
  auto row_sums = torch::empty({s.batch * s.anchors});
  const float upstream[1] = {kUpstream};
  for (int64_t i = 0; i < s.batch * s.anchors; ++i) {
    fused::cbce::forward_row(s, in, row_sums.data_ptr<float>(), i);
    fused::cbce::backward_row(s, in, upstream, grad.data_ptr<float>(), i);
  }
  return {row_sums.sum(), grad};
}

void check_close(const Result& got, const Result& want) {
  CHECK(got.sum.item<double>() == doctest::Approx(want.sum.item<double>()).epsilon(1e-5));
  CHECK(relative_difference(got.grad.cpu(), want.grad.cpu()) <= 1e-5);
}

}  // namespace

TEST_CASE("class_bce_sum composed is the criteria's former BCE expressions bit for bit") {
  torch::manual_seed(61);
  const auto c = make_case(2, 30, torch::kCPU);
  const PolicyGuard cpu_composes(sdk::FusedKernels::when_built);  // the kernels refuse CPU tensors
  for (const bool foreground_only : {false, true}) {
    CAPTURE(foreground_only);
    const auto got = through_sdk(c, foreground_only);
    c.raw.mutable_grad().reset();
    torch::Tensor want;
    if (foreground_only) {
      const auto bce = torch::binary_cross_entropy_with_logits(c.logits(), c.dense_target(), {}, {}, at::Reduction::None);
      want = torch::where(c.foreground.unsqueeze(2), bce, torch::zeros({})).sum();
    } else {
      want = torch::binary_cross_entropy_with_logits(c.logits(), c.dense_target(), {}, {}, at::Reduction::Sum);
    }
    (want * kUpstream).backward();
    CHECK(torch::equal(got.sum, want.detach()));
    CHECK(torch::equal(got.grad, c.raw.grad().transpose(1, 2).narrow(2, 4, kClasses)));
  }
  const auto why = losses::class_bce_refusal({c.logits(), c.labels, c.quality, {}, {}});
  CHECK((why == "this build has no fused CUDA kernels" || why == "the inputs are not all on one CUDA device"));
}

TEST_CASE("class_bce_sum: the kernels' per-anchor code equals the composed ops and autograd within float32 rounding") {
  torch::manual_seed(62);
  const auto c = make_case(3, 50, torch::kCPU);
  const PolicyGuard off(sdk::FusedKernels::off);
  for (const bool foreground_only : {false, true}) {
    CAPTURE(foreground_only);
    check_close(kernel_code_on_host(c, foreground_only), through_sdk(c, foreground_only));
  }
}

TEST_CASE("class_bce_sum: the refusal names what the kernels do not take") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto c = make_case(2, 20, torch::kCUDA);
  const losses::ClassBceInputs good{c.logits(), c.labels, c.quality, c.foreground, {}};
  CHECK(losses::class_bce_refusal(good).empty());
  auto bad = good;
  bad.quality = c.quality.cpu();
  CHECK(losses::class_bce_refusal(bad) == "the inputs are not all on one CUDA device");
  bad = good;
  bad.rows = c.foreground.cpu();
  CHECK(losses::class_bce_refusal(bad) == "the inputs are not all on one CUDA device");
  bad = good;
  bad.logits = c.logits().to(torch::kHalf);
  CHECK(losses::class_bce_refusal(bad) == "the logits or qualities are not float32");
  bad = good;
  bad.labels = c.labels.to(torch::kInt32);
  CHECK(losses::class_bce_refusal(bad) == "the labels are not int64");
  bad = good;
  bad.rows = c.foreground.to(torch::kFloat32);
  CHECK(losses::class_bce_refusal(bad) == "the counted rows are not bool");
  bad = good;
  bad.logits = c.logits().flatten(1);
  CHECK(losses::class_bce_refusal(bad) == "the logits are not a non-empty [B, A, C]");
  bad = good;
  bad.quality = c.quality.narrow(1, 0, 5);
  CHECK(losses::class_bce_refusal(bad) == "the labels or qualities are not [B, A]");
  bad = good;
  bad.rows = c.foreground.narrow(1, 0, 5);
  CHECK(losses::class_bce_refusal(bad) == "the counted rows are not [B, A]");
}

TEST_CASE("class_bce_sum: the fused kernels equal the composed ops within float32 rounding") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(63);
  const auto c = make_case(4, 8400, torch::kCUDA);
  for (const bool foreground_only : {false, true}) {
    CAPTURE(foreground_only);
    Result want;
    {
      const PolicyGuard off(sdk::FusedKernels::off);
      want = through_sdk(c, foreground_only);
    }
    const PolicyGuard on(sdk::FusedKernels::when_built, "class_bce");
    check_close(through_sdk(c, foreground_only), want);
  }
}

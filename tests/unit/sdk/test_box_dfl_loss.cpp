// sdk::losses::box_dfl_loss (box_dfl_loss.hpp): composed, it is the YOLOv9 criterion's former
// expressions bit for bit, and the CPU refuses the kernels saying why. The fused kernels'
// per-anchor code (box_dfl_loss_device.cuh) runs on the CPU here against the composed ops and
// their autograd: both sums and every logit's gradient within float32 rounding, on inputs laid out
// as the criterion's (a transposed view), with background anchors, clamped and whole-bin target
// distances. On a CUDA machine: every refusal, and the kernels themselves against the composed
// ops, within the same tolerance.
#include "../torch_doctest.hpp"

#include <cmath>
#include <string>

#include "../../../sdk/src/cuda/box_dfl_loss_device.cuh"  // the fused kernels' code, for the host
#include "fused_test_support.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/losses/box_dfl_loss.hpp"
#include "libreyolo/sdk/losses/box_ops.hpp"
#include "libreyolo/sdk/losses/dfl.hpp"

namespace losses = libreyolo::sdk::losses;
namespace sdk = libreyolo::sdk;
namespace fused = libreyolo::sdk::fused;

namespace {

using libreyolo::test::fused_runnable;
using libreyolo::test::PolicyGuard;
using libreyolo::test::relative_difference;

constexpr int64_t kBins = 16;
constexpr double kMaxDistance = kBins - 1.01;
constexpr float kUpstreamBox = 0.7f, kUpstreamDfl = 1.3f;

// The criterion's inputs for B images of side x side anchors: the head's raw [B, C, A] output
// (a leaf here), its logits a transposed, narrowed view; half the anchors foreground (a target
// box around the point, one side beyond the bins, one on a whole bin), the rest background (the
// anchor's cell, weight 0).
struct Case {
  torch::Tensor raw, points, targets, weight;
  torch::Tensor logits() const {
    const int64_t batch = raw.size(0), anchors = raw.size(2);
    return raw.transpose(1, 2).narrow(2, 0, 4 * kBins).reshape({batch, anchors, 4, kBins});
  }
};

Case make_case(int64_t batch, int64_t side, torch::Device device) {
  const int64_t anchors = side * side;
  const auto coords = torch::arange(side, torch::kFloat32) + 0.5;
  const auto grid = torch::meshgrid({coords, coords}, "ij");
  const auto points = torch::stack({grid[1].reshape(-1), grid[0].reshape(-1)}, 1);  // [A, 2] x, y
  const auto foreground = torch::rand({batch, anchors}) < 0.5;
  auto distances = torch::rand({batch, anchors, 4}) * 13.0 + 0.2;
  distances.select(2, 2).select(1, 0).fill_(20.0);  // beyond max_distance: clamped
  distances.select(2, 1).select(1, 1).fill_(3.0);   // a whole bin: no right-hand weight
  const auto around = torch::cat({points - distances.narrow(2, 0, 2), points + distances.narrow(2, 2, 2)}, 2);
  const auto cell = torch::cat({points - 0.5, points + 0.5}, 1).unsqueeze(0).expand({batch, anchors, 4});
  Case c;
  c.points = points.to(device);
  c.targets = torch::where(foreground.unsqueeze(2), around, cell).contiguous().to(device);
  c.weight = torch::where(foreground, torch::rand({batch, anchors}) * 0.9 + 0.1, torch::zeros({})).to(device);
  c.raw = (torch::randn({batch, 4 * kBins + 3, anchors}) * 2.0).to(device).requires_grad_();
  return c;
}

struct Result {
  torch::Tensor box, dfl, grad;  // grad: d(0.7 box + 1.3 dfl) / d logits, [B, A, 4, bins]
};

// box_dfl_loss as the criterion calls it, under the current policy, and its autograd.
Result through_sdk(const Case& c) {
  if (c.raw.grad().defined()) c.raw.mutable_grad().reset();
  const auto logits = c.logits();
  const auto pred_boxes = losses::distance_to_bbox(losses::dfl_decode(logits), c.points);
  const auto sums = losses::box_dfl_loss({logits, pred_boxes, c.points, c.targets, c.weight, kMaxDistance});
  (sums.box * kUpstreamBox + sums.dfl * kUpstreamDfl).backward();
  const int64_t batch = c.raw.size(0), anchors = c.raw.size(2);
  const auto grad = c.raw.grad().transpose(1, 2).narrow(2, 0, 4 * kBins).reshape({batch, anchors, 4, kBins});
  return {sums.box.detach(), sums.dfl.detach(), grad};
}

// The kernels' per-anchor code on the host, over every anchor, as the CUDA wrapper describes them.
Result kernel_code_on_host(const Case& c) {
  const auto logits = c.logits().detach();
  const int64_t batch = logits.size(0), anchors = logits.size(1);
  fused::BoxDflShape s;
  s.batch = batch;
  s.anchors = anchors;
  s.bins = kBins;
  s.max_distance = static_cast<float>(kMaxDistance);
  s.four_over_pi_squared = static_cast<float>(4.0 / (M_PI * M_PI));
  auto grad = torch::empty({batch, 4, kBins, anchors}).permute({0, 3, 1, 2});
  for (int d = 0; d < 4; ++d) s.logit_stride[d] = logits.stride(d), s.grad_stride[d] = grad.stride(d);
  fused::BoxDflBuffers in;
  in.logits = logits.data_ptr<float>();
  in.points = c.points.data_ptr<float>();
  in.targets = c.targets.data_ptr<float>();
  in.weight = c.weight.data_ptr<float>();
  auto terms = torch::empty({batch * anchors, 2});
  const float upstream[2] = {kUpstreamBox, kUpstreamDfl};
  for (int64_t i = 0; i < batch * anchors; ++i) {
    fused::bdl::forward_anchor(s, in, terms.data_ptr<float>(), i);
    fused::bdl::backward_anchor(s, in, upstream, grad.data_ptr<float>(), i);
  }
  return {terms.select(1, 0).sum(), terms.select(1, 1).sum(), grad};
}

void check_close(const Result& got, const Result& want) {
  CHECK(got.box.item<double>() == doctest::Approx(want.box.item<double>()).epsilon(1e-5));
  CHECK(got.dfl.item<double>() == doctest::Approx(want.dfl.item<double>()).epsilon(1e-5));
  CHECK(relative_difference(got.grad.cpu(), want.grad.cpu()) <= 1e-5);
}

}  // namespace

TEST_CASE("box_dfl_loss composed is the criterion's CIoU and DFL expressions bit for bit") {
  torch::manual_seed(51);
  const auto c = make_case(2, 6, torch::kCPU);
  const PolicyGuard cpu_composes(sdk::FusedKernels::when_built);  // the kernels refuse CPU tensors
  const auto got = through_sdk(c);
  c.raw.mutable_grad().reset();
  const auto logits = c.logits();
  const auto pred_boxes = losses::distance_to_bbox(losses::dfl_decode(logits), c.points);
  const auto ciou = losses::box_iou(pred_boxes, c.targets, losses::IoUKind::ciou);
  const auto box = ((1.0 - ciou) * c.weight).sum();
  const auto target_distance = losses::bbox_to_distance(c.points, c.targets, kMaxDistance);
  const auto dfl = (losses::dfl_loss(logits, target_distance).mean(2) * c.weight).sum();
  (box * kUpstreamBox + dfl * kUpstreamDfl).backward();
  CHECK(torch::equal(got.box, box.detach()));
  CHECK(torch::equal(got.dfl, dfl.detach()));
  CHECK(torch::equal(got.grad, c.raw.grad().transpose(1, 2).narrow(2, 0, 4 * kBins).reshape(got.grad.sizes())));
  const auto why = losses::box_dfl_loss_refusal({logits, pred_boxes, c.points, c.targets, c.weight, kMaxDistance});
  CHECK((why == "this build has no fused CUDA kernels" || why == "the inputs are not all on one CUDA device"));
}

TEST_CASE("box_dfl_loss: the kernels' per-anchor code equals the composed ops and autograd within float32 rounding") {
  torch::manual_seed(52);
  for (const int64_t side : {4, 9}) {
    CAPTURE(side);
    const auto c = make_case(3, side, torch::kCPU);
    const PolicyGuard off(sdk::FusedKernels::off);
    const auto want = through_sdk(c);
    CHECK(want.box.item<double>() > 0);
    CHECK(want.dfl.item<double>() > 0);
    check_close(kernel_code_on_host(c), want);
  }
}

TEST_CASE("box_dfl_loss: the refusal names what the kernels do not take") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto c = make_case(2, 4, torch::kCUDA);
  const auto logits = c.logits();
  const losses::BoxDflInputs good{logits, torch::Tensor(), c.points, c.targets, c.weight, kMaxDistance};
  CHECK(losses::box_dfl_loss_refusal(good).empty());
  auto bad = good;
  bad.points = c.points.cpu();
  CHECK(losses::box_dfl_loss_refusal(bad) == "the inputs are not all on one CUDA device");
  bad = good;
  bad.weight = c.weight.to(torch::kHalf);
  CHECK(losses::box_dfl_loss_refusal(bad) == "the inputs are not all float32");
  bad = good;
  bad.logits = logits.flatten(2);
  CHECK(losses::box_dfl_loss_refusal(bad) == "the logits are not [B, A, 4, reg_max]");
  bad = good;
  bad.logits = torch::zeros({2, 16, 4, 40}, logits.options());
  CHECK(losses::box_dfl_loss_refusal(bad) == "reg_max is outside the kernels' 2 .. 32");
  bad = good;
  bad.points = c.points.narrow(0, 0, 3);
  CHECK(losses::box_dfl_loss_refusal(bad) == "the points are not [A, 2]");
  bad = good;
  bad.target_boxes = c.targets.narrow(1, 0, 3);
  CHECK(losses::box_dfl_loss_refusal(bad) == "the target boxes are not [B, A, 4]");
  bad = good;
  bad.weight = c.weight.unsqueeze(2);
  CHECK(losses::box_dfl_loss_refusal(bad) == "the weights are not [B, A]");
}

TEST_CASE("box_dfl_loss: the fused kernels equal the composed ops within float32 rounding") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(53);
  for (const int64_t side : {4, 40}) {
    CAPTURE(side);
    const auto c = make_case(4, side, torch::kCUDA);
    Result want;
    {
      const PolicyGuard off(sdk::FusedKernels::off);
      want = through_sdk(c);
    }
    const PolicyGuard on(sdk::FusedKernels::when_built, "box_dfl_loss");
    check_close(through_sdk(c), want);
  }
}

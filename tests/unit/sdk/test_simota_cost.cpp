// sdk::losses::simota_cost (simota_cost.hpp): the composed path's centre prior, IoU and cost on
// a hand-checked case, the composed path equal bit for bit to the formulation it replaced (full
// [B, A, C] positive and negative BCE tensors, then gathered), auto on the CPU falls back to it;
// on a CUDA machine the refusals name why and the fused kernel gives the composed outputs bit for
// bit (strided scores, padding rows, scores of exactly 0 and 1, a zero-size gt, a NaN box).
#include "../torch_doctest.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "../../../sdk/src/cuda/simota_cost_device.cuh"  // the fused kernel's code, compiled for the host
#include "../../../sdk/src/losses/simota_cost_shape.hpp"
#include "fused_test_support.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/losses/simota_cost.hpp"

namespace losses = libreyolo::sdk::losses;
namespace sdk = libreyolo::sdk;

namespace {

using libreyolo::test::fused_runnable;
using libreyolo::test::PolicyGuard;
using libreyolo::test::same_bits;

// B images, M gt rows (the last one padding in every image), a side x side grid at stride 8 and
// two coarser levels' strides, C classes; the scores a strided view (not contiguous).
losses::SimOtaCostInputs random_inputs(int64_t batch, int64_t rows, int64_t side, int64_t classes) {
  const int64_t anchors = side * side;
  const auto cells = torch::arange(side, torch::kFloat32);
  const auto grid = torch::stack(torch::meshgrid({cells, cells}, "xy"), -1).reshape({anchors, 2}).contiguous();
  auto strides = torch::full({anchors}, 8.0f);
  strides.narrow(0, anchors / 2, anchors / 4).fill_(16.0f);
  strides.narrow(0, anchors * 3 / 4, anchors - anchors * 3 / 4).fill_(32.0f);
  const double extent = static_cast<double>(side) * 8.0;
  auto gt = torch::cat({torch::rand({batch, rows, 2}) * extent, torch::rand({batch, rows, 2}) * extent * 0.3 + 2.0}, -1);
  gt.index_put_({0, 0}, torch::tensor({20.0f, 20.0f, 0.0f, 0.0f}));  // a zero-size gt box
  const auto centres = ((grid + 0.5) * strides.unsqueeze(1)).unsqueeze(0) + torch::randn({batch, anchors, 2}) * 3.0;
  auto pred = torch::cat({centres, torch::rand({batch, anchors, 2}) * 60.0 + 1.0}, -1);
  auto valid = torch::ones({batch, rows}, torch::kBool);
  valid.select(1, rows - 1).fill_(false);
  const auto labels = torch::randint(0, classes, {batch, rows}, torch::kLong);
  auto scores = torch::sigmoid(torch::randn({batch, anchors, classes + 3}) * 3.0).narrow(2, 1, classes);
  scores.index_put_({0, 0}, 1.0f);  // BCE's clamped logs: log(0) and log1p(-1)
  scores.index_put_({0, 1}, 0.0f);
  return {pred, scores, grid, strides, gt, labels, valid};
}

losses::SimOtaCostInputs on_cuda(const losses::SimOtaCostInputs& in) {
  return {in.pred_boxes.to(torch::kCUDA), in.pred_scores.to(torch::kCUDA), in.grid.to(torch::kCUDA),
          in.strides.to(torch::kCUDA),    in.gt_boxes.to(torch::kCUDA),    in.labels.to(torch::kCUDA),
          in.gt_valid.to(torch::kCUDA)};
}

void check_same(const losses::SimOtaCost& got, const losses::SimOtaCost& want) {
  CHECK(same_bits(got.iou, want.iou));
  CHECK(same_bits(got.cost, want.cost));
  CHECK(torch::equal(got.candidates, want.candidates));
}

// The class cost as it was computed before simota_cost existed: both BCEs over all of [B, A, C]
// against filled targets, their difference gathered at each row's class.
torch::Tensor class_cost_before(const losses::SimOtaCostInputs& in) {
  const int64_t batch = in.gt_boxes.size(0), rows = in.gt_boxes.size(1), anchors = in.pred_scores.size(1);
  const auto negative = torch::binary_cross_entropy(in.pred_scores, torch::zeros_like(in.pred_scores), {},
                                                    at::Reduction::None);
  const auto positive = torch::binary_cross_entropy(in.pred_scores, torch::ones_like(in.pred_scores), {},
                                                    at::Reduction::None);
  const auto correction =
      (positive - negative).transpose(1, 2).gather(1, in.labels.unsqueeze(2).expand({batch, rows, anchors}));
  return negative.sum(2).unsqueeze(1) + correction;
}


// The fused kernel's per-anchor code (simota_cost_device.cuh) run on the CPU for every (image,
// anchor), with the class BCE's negative sum by the composed ops as the CUDA wrapper computes it.
losses::SimOtaCost run_kernel_code_on_host(const losses::SimOtaCostInputs& in, const losses::SimOtaCostOptions& options) {
  namespace fused = libreyolo::sdk::fused;
  const auto s = losses::simota_cost_shape(in, options);
  const auto negative_sum = losses::simota_negative_class_sum(in.pred_scores);
  const auto boxes = in.pred_boxes.contiguous(), grid = in.grid.contiguous(), strides = in.strides.contiguous();
  const auto gt = in.gt_boxes.contiguous(), labels = in.labels.contiguous(), valid = in.gt_valid.contiguous();
  losses::SimOtaCost out{torch::empty({s.batch, s.rows, s.anchors}), torch::empty({s.batch, s.rows, s.anchors}),
                         torch::empty({s.batch, s.anchors}, torch::kBool)};
  const fused::SimOtaCostInputs inputs{boxes.data_ptr<float>(), in.pred_scores.data_ptr<float>(), grid.data_ptr<float>(),
                                       strides.data_ptr<float>(), gt.data_ptr<float>(), labels.data_ptr<int64_t>(),
                                       valid.data_ptr<bool>(), negative_sum.data_ptr<float>()};
  const fused::SimOtaCostOutputs outputs{out.iou.data_ptr<float>(), out.cost.data_ptr<float>(),
                                         out.candidates.data_ptr<bool>()};
  for (int64_t i = 0; i < s.batch * s.anchors; ++i) fused::simota::cost_of_anchor(s, inputs, outputs, i);
  return out;
}
}  // namespace

TEST_CASE("simota_cost composed: centre prior, IoU and cost of a hand-checked image") {
  // Stride 8; anchors at cells (0, 0), (2, 0), (3, 0): centres (4, 4), (20, 4), (28, 4). Row 0 a
  // 16 px box at (12, 12), row 1 one at (36, 12), row 2 padding. Radius 1.5 strides = 12 px: row
  // 0's centre square spans x in (0, 24), row 1's (24, 48); both y in (0, 24).
  const auto gt = torch::tensor({12.f, 12.f, 16.f, 16.f, 36.f, 12.f, 16.f, 16.f, 0.f, 0.f, 0.f, 0.f}).view({1, 3, 4});
  const auto grid = torch::tensor({0.f, 0.f, 2.f, 0.f, 3.f, 0.f}).view({3, 2});
  const auto strides = torch::full({3}, 8.0f);
  // Predictions: row 0's box, row 0's box moved 8 px right (IoU 1/3 with it), row 1's box.
  const auto pred = torch::tensor({12.f, 12.f, 16.f, 16.f, 20.f, 12.f, 16.f, 16.f, 36.f, 12.f, 16.f, 16.f}).view({1, 3, 4});
  const auto scores = torch::full({1, 3, 2}, 0.5f);
  const losses::SimOtaCostInputs in{pred, scores, grid, strides, gt, torch::zeros({1, 3}, torch::kLong),
                                    torch::tensor({true, true, false}).view({1, 3})};
  const auto out = losses::simota_cost_composed(in, {});
  CHECK(torch::equal(out.candidates, torch::tensor({true, true, true}).view({1, 3})));
  const auto third = 1.0f / 3.0f;
  CHECK(out.iou.allclose(torch::tensor({1.f, third, 0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f}).view({1, 3, 3}), 1e-6, 1e-6));
  // cost = 2 log 2 (both classes' BCE at 0.5, the correction 0) + 3 * -log(iou + 1e-8)
  //        + 1e6 outside the row's centre square; +inf on the padding row.
  const float base = 2.0f * std::log(2.0f), inf = std::numeric_limits<float>::infinity();
  const auto iou_cost = [](double iou) { return static_cast<float>(-3.0 * std::log(iou + 1e-8)); };
  const auto want = torch::tensor({base + iou_cost(1.0), base + iou_cost(1.0 / 3.0), base + iou_cost(0.0) + 1e6f,
                                   base + iou_cost(0.0) + 1e6f, base + iou_cost(0.0) + 1e6f, base + iou_cost(1.0),
                                   inf, inf, inf})
                        .view({1, 3, 3});
  CHECK(out.cost.allclose(want, 1e-5, 1e-5));
}

TEST_CASE("simota_cost composed: the class cost equals the full-tensor formulation it replaced, bit for bit") {
  torch::manual_seed(3);
  const auto in = random_inputs(3, 6, 10, 5);
  const auto out = losses::simota_cost_composed(in, {});
  const auto iou_cost = -torch::log(out.iou + 1e-8);
  const auto pair_valid = torch::logical_and(in.gt_valid.unsqueeze(2), out.candidates.unsqueeze(1));
  // Recompute the cost with the old class term and the in-centre flags the cost itself implies.
  const auto outside = (out.cost - class_cost_before(in) - 3.0 * iou_cost) > 0.5e6;
  const auto before = torch::where(pair_valid, class_cost_before(in) + 3.0 * iou_cost + 1.0e6 * outside.to(torch::kFloat32),
                                   torch::full({}, std::numeric_limits<float>::infinity()));
  CHECK(same_bits(out.cost, before));
  CHECK(torch::isfinite(out.cost).any().item<bool>());
}

TEST_CASE("simota_cost under auto on the CPU is the composed path bit for bit") {
  torch::manual_seed(5);
  const auto in = random_inputs(2, 4, 8, 3);
  const auto want = losses::simota_cost_composed(in, {});
  const PolicyGuard on(sdk::FusedKernels::when_built);
  check_same(losses::simota_cost(in, {}), want);
  const auto why = losses::simota_cost_refusal(in);
  CHECK((why == "this build has no fused CUDA kernels" || why == "the inputs are not all on one CUDA device"));
}

TEST_CASE("the fused SimOTA kernel's code, run on the CPU, gives the composed outputs") {
  // The GPU case below checks the kernel itself bit for bit; this one runs its code on every
  // build. IoUs and candidates are plain float32 arithmetic: bit for bit. The costs go through
  // log: the C library's logf and log1pf here, PyTorch's vectorised log (SLEEF) in the composed
  // ops, so within 1 ulp-scale.
  torch::manual_seed(17);
  auto in = random_inputs(3, 7, 20, 6);
  in.pred_boxes.index_put_({1, 9, 3}, std::numeric_limits<float>::quiet_NaN());
  for (const double radius : {1.5, 2.5}) {
    INFO("center_radius ", radius);
    losses::SimOtaCostOptions options;
    options.center_radius = radius;
    const auto want = losses::simota_cost_composed(in, options);
    const auto got = run_kernel_code_on_host(in, options);
    CHECK(torch::equal(got.candidates, want.candidates));
    CHECK(same_bits(got.iou, want.iou));
    CHECK(torch::equal(torch::isinf(got.cost), torch::isinf(want.cost)));
    CHECK(torch::equal(torch::isnan(got.cost), torch::isnan(want.cost)));
    const auto finite = torch::isfinite(want.cost);
    CHECK(finite.sum().item<int64_t>() > 100);
    CHECK(torch::allclose(got.cost.masked_select(finite), want.cost.masked_select(finite), 1e-6, 1e-6));
    MESSAGE("costs bit for bit on this machine: ", same_bits(got.cost, want.cost));
  }
}

TEST_CASE("simota_cost's refusals name what the kernel does not take") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto in = on_cuda(random_inputs(1, 3, 4, 2));
  CHECK(losses::simota_cost_refusal(in).empty());
  auto half = in;
  half.pred_scores = in.pred_scores.to(torch::kHalf);
  CHECK(losses::simota_cost_refusal(half) == "the boxes, scores and grid are not all float32");
  auto mixed = in;
  mixed.gt_boxes = in.gt_boxes.cpu();
  CHECK(losses::simota_cost_refusal(mixed) == "the inputs are not all on one CUDA device");
  auto wrong = in;
  wrong.labels = in.labels.narrow(1, 0, 2);
  CHECK(losses::simota_cost_refusal(wrong).find("the shapes do not match") == 0);
}

TEST_CASE("the fused SimOTA cost gives the composed outputs bit for bit") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(13);
  auto in = on_cuda(random_inputs(4, 11, 40, 9));  // 1,600 anchors
  in.pred_boxes.index_put_({1, 7, 2}, std::numeric_limits<float>::quiet_NaN());
  const PolicyGuard on(sdk::FusedKernels::when_built, "simota_cost");
  for (const double radius : {1.5, 2.5}) {
    INFO("center_radius ", radius);
    losses::SimOtaCostOptions options;
    options.center_radius = radius;
    REQUIRE(losses::simota_cost_refusal(in).empty());
    check_same(losses::simota_cost(in, options), losses::simota_cost_composed(in, options));
  }
}

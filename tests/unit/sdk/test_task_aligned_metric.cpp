// sdk::losses::task_aligned_metric (task_aligned_metric.hpp): the composed path's candidates,
// IoU and metric on a hand-checked case, auto on the CPU falls back to it bit for bit, the
// refusals name why; on a CUDA machine the fused kernel gives the composed outputs bit for bit
// for every IoU kind, PyTorch's pow paths, with and without the distance limit, strided scores,
// padding rows, degenerate and inverted boxes and a NaN.
#include "../torch_doctest.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "../../../sdk/src/cuda/task_aligned_metric_device.cuh"  // the fused kernel's code, for the host
#include "../../../sdk/src/losses/task_aligned_metric_shape.hpp"
#include "fused_test_support.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/losses/task_aligned_metric.hpp"

namespace losses = libreyolo::sdk::losses;
namespace sdk = libreyolo::sdk;

namespace {

using libreyolo::test::fused_runnable;
using libreyolo::test::PolicyGuard;
using libreyolo::test::same_bits;

// A batch of B images, M gt rows (the last one padding in every image), A anchors on a
// 8/16/32-stride grid, C classes; the scores a transposed view (not contiguous).
losses::AlignmentInputs random_inputs(int64_t batch, int64_t rows, int64_t side, int64_t classes) {
  const int64_t anchors = side * side;
  const auto cells = torch::arange(side, torch::kFloat32) + 0.5;
  const auto grid = torch::stack(torch::meshgrid({cells, cells}, "xy"), -1).reshape({anchors, 2});
  auto strides = torch::full({anchors}, 8.0f);
  strides.narrow(0, anchors / 2, anchors / 4).fill_(16.0f);
  strides.narrow(0, anchors * 3 / 4, anchors - anchors * 3 / 4).fill_(32.0f);
  const auto points = grid * strides.unsqueeze(1);
  const double extent = static_cast<double>(side) * 8.0;
  const auto gt_low = torch::rand({batch, rows, 2}) * extent;
  auto gt = torch::cat({gt_low, gt_low + torch::rand({batch, rows, 2}) * extent * 0.4 + 1.0}, -1);
  gt.index_put_({0, 0}, torch::tensor({5.0f, 5.0f, 5.0f, 5.0f}));  // a zero-size gt box
  const auto centre = points.unsqueeze(0).expand({batch, anchors, 2}) + torch::randn({batch, anchors, 2}) * 4.0;
  const auto half = torch::rand({batch, anchors, 2}) * 40.0 + 0.5;
  auto pred = torch::cat({centre - half, centre + half}, -1);
  pred.index_put_({0, 1}, torch::tensor({30.0f, 30.0f, 10.0f, 12.0f}));  // inverted
  auto valid = torch::ones({batch, rows}, torch::kBool);
  valid.select(1, rows - 1).fill_(false);
  const auto labels = torch::randint(0, classes, {batch, rows}, torch::kLong);
  const auto scores = torch::sigmoid(torch::randn({batch, classes, anchors})).transpose(1, 2);
  return {scores, pred, points, strides, labels, gt, valid};
}

losses::AlignmentInputs on_cuda(const losses::AlignmentInputs& in) {
  return {in.pred_scores.to(torch::kCUDA), in.pred_boxes.to(torch::kCUDA), in.anchor_points.to(torch::kCUDA),
          in.anchor_strides.to(torch::kCUDA), in.labels.to(torch::kCUDA), in.gt_boxes.to(torch::kCUDA),
          in.gt_valid.to(torch::kCUDA)};
}

void check_same(const losses::AlignmentMetric& got, const losses::AlignmentMetric& want) {
  CHECK(same_bits(got.iou, want.iou));
  CHECK(same_bits(got.metric, want.metric));
  CHECK(same_bits(got.candidate_metric, want.candidate_metric));
}


// The fused kernel's per-pair code (task_aligned_metric_device.cuh) run on the CPU for every
// (b, m, a), with the CUDA wrapper's launch description.
losses::AlignmentMetric run_kernel_code_on_host(const losses::AlignmentInputs& in,
                                                const losses::TaskAlignedAssignerOptions& options) {
  namespace fused = libreyolo::sdk::fused;
  const auto s = losses::metric_shape(in, options);
  const auto gt = in.gt_boxes.contiguous(), pred = in.pred_boxes.contiguous();
  const auto points = in.anchor_points.contiguous(), strides = in.anchor_strides.contiguous();
  const auto labels = in.labels.contiguous(), valid = in.gt_valid.contiguous();
  losses::AlignmentMetric out{torch::empty({s.batch, s.rows, s.anchors}), torch::empty({s.batch, s.rows, s.anchors}),
                              torch::empty({s.batch, s.rows, s.anchors})};
  const fused::AlignedMetricInputs inputs{gt.data_ptr<float>(),      pred.data_ptr<float>(),
                                          points.data_ptr<float>(),  strides.data_ptr<float>(),
                                          in.pred_scores.data_ptr<float>(), labels.data_ptr<int64_t>(),
                                          valid.data_ptr<bool>()};
  const fused::AlignedMetricOutputs outputs{out.iou.data_ptr<float>(), out.metric.data_ptr<float>(),
                                            out.candidate_metric.data_ptr<float>()};
  for (int64_t i = 0; i < s.batch * s.rows * s.anchors; ++i) fused::tam::metric_of_pair(s, inputs, outputs, i);
  return out;
}

// Equal as NaN patterns, within `tolerance` (relative to each tensor's largest magnitude) elsewhere.
void check_close(const torch::Tensor& got, const torch::Tensor& want, double tolerance) {
  CHECK(torch::equal(torch::isnan(got), torch::isnan(want)));
  const auto zero = torch::zeros({});
  CHECK(libreyolo::test::relative_difference(torch::where(torch::isnan(got), zero, got),
                                             torch::where(torch::isnan(want), zero, want)) <= tolerance);
}
}  // namespace

TEST_CASE("task_aligned_metric composed: candidates inside the box and within reach, metric off padding rows") {
  // One image, two rows (the second padding), three anchors at stride 8: inside, outside, and
  // inside but 3 strides from the far side (beyond max_distance 2).
  const auto gt = torch::tensor({0.0f, 0.0f, 32.0f, 16.0f, 0.0f, 0.0f, 32.0f, 16.0f}).view({1, 2, 4});
  const auto points = torch::tensor({4.0f, 4.0f, 40.0f, 4.0f, 28.0f, 8.0f}).view({3, 2});
  const auto strides = torch::full({3}, 8.0f);
  const auto pred = gt.narrow(1, 0, 1).expand({1, 3, 4}).contiguous();  // every prediction is the gt box
  const auto scores = torch::full({1, 3, 2}, 0.25f);
  const losses::AlignmentInputs in{scores, pred, points, strides, torch::zeros({1, 2}, torch::kLong), gt,
                                   torch::tensor({true, false}).view({1, 2})};
  losses::TaskAlignedAssignerOptions options;
  options.max_distance = 2.0;
  const auto out = losses::task_aligned_metric_composed(in, options);
  REQUIRE(out.iou.sizes() == torch::IntArrayRef({1, 2, 3}));
  CHECK(out.iou.allclose(torch::ones({1, 2, 3}), 0, 1e-6));
  // metric = 0.25^0.5 * 1^6 = 0.5 on the real row, 0 on the padding row.
  CHECK(torch::equal(out.metric, torch::tensor({0.5f, 0.5f, 0.5f, 0.0f, 0.0f, 0.0f}).view({1, 2, 3})));
  // The first anchor's farthest side is 28 px = 3.5 strides; the third's 28 px too: both beyond
  // 2 strides. Without the limit the first and third are candidates.
  CHECK(torch::equal(out.candidate_metric, torch::zeros({1, 2, 3})));
  options.max_distance = 0.0;
  const auto unlimited = losses::task_aligned_metric_composed(in, options);
  CHECK(torch::equal(unlimited.candidate_metric, torch::tensor({0.5f, 0.0f, 0.5f, 0.0f, 0.0f, 0.0f}).view({1, 2, 3})));
}

TEST_CASE("the fused task-aligned metric's code, run on the CPU, gives the composed outputs") {
  // The GPU case below checks the kernel itself bit for bit; this one runs its code on every
  // build. Plain IoU with PyTorch's special powers is float32 arithmetic only: bit for bit. CIoU's
  // atan and the general pow are the C library's here and PyTorch's vectorised ones (SLEEF) in the
  // composed ops: within 1e-6 of the largest value.
  torch::manual_seed(41);
  auto in = random_inputs(2, 6, 16, 5);
  in.pred_boxes.index_put_({1, 5, 2}, std::numeric_limits<float>::quiet_NaN());
  struct Setting {
    losses::IoUKind kind;
    double score_power, iou_power, max_distance;
    bool exact;
  };
  for (const Setting& c : {Setting{losses::IoUKind::iou, 0.5, 2.0, 0.0, true},
                           Setting{losses::IoUKind::iou, 1.0, 3.0, 14.99, true},
                           Setting{losses::IoUKind::iou, 0.5, 2.0, 2.5, true},  // a limit that binds
                           Setting{losses::IoUKind::giou, 3.0, 1.0, 0.0, true},
                           Setting{losses::IoUKind::diou, 0.5, 2.0, 14.99, true},
                           Setting{losses::IoUKind::ciou, 0.5, 6.0, 14.99, false},
                           Setting{losses::IoUKind::ciou, 3.0, 0.25, 0.0, false}}) {
    INFO("kind ", static_cast<int>(c.kind), ", powers ", c.score_power, " and ", c.iou_power);
    losses::TaskAlignedAssignerOptions options;
    options.iou_kind = c.kind;
    options.score_power = c.score_power;
    options.iou_power = c.iou_power;
    options.max_distance = c.max_distance;
    const auto want = losses::task_aligned_metric_composed(in, options);
    const auto got = run_kernel_code_on_host(in, options);
    CHECK((want.candidate_metric > 0).sum().item<int64_t>() > 0);
    if (c.exact) {
      check_same(got, want);
    } else {
      check_close(got.iou, want.iou, 1e-6);
      check_close(got.metric, want.metric, 1e-6);
      check_close(got.candidate_metric, want.candidate_metric, 1e-6);
      CHECK(torch::equal(got.candidate_metric > 0, want.candidate_metric > 0));
    }
  }
}

TEST_CASE("task_aligned_metric under auto on the CPU is the composed path bit for bit") {
  torch::manual_seed(7);
  const auto in = random_inputs(2, 5, 12, 4);
  losses::TaskAlignedAssignerOptions options;
  options.max_distance = 14.99;
  const auto want = losses::task_aligned_metric_composed(in, options);
  const PolicyGuard on(sdk::FusedKernels::when_built);
  check_same(losses::task_aligned_metric(in, options), want);
  const auto why = losses::task_aligned_metric_refusal(in, options);
  CHECK((why == "this build has no fused CUDA kernels" || why == "the inputs are not all on one CUDA device"));
}

TEST_CASE("task_aligned_metric's refusals name what the kernel does not take") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto in = on_cuda(random_inputs(1, 3, 4, 2));
  losses::TaskAlignedAssignerOptions options;
  CHECK(losses::task_aligned_metric_refusal(in, options).empty());
  auto half = in;
  half.pred_scores = in.pred_scores.to(torch::kHalf);
  CHECK(losses::task_aligned_metric_refusal(half, options) == "the scores, boxes and anchors are not all float32");
  auto mixed = in;
  mixed.gt_boxes = in.gt_boxes.cpu();
  CHECK(losses::task_aligned_metric_refusal(mixed, options) == "the inputs are not all on one CUDA device");
  auto wrong = in;
  wrong.labels = in.labels.narrow(1, 0, 2);
  CHECK(losses::task_aligned_metric_refusal(wrong, options).find("the shapes do not match") == 0);
  for (const double p : {0.0, -0.5, -1.0, -2.0}) {
    auto special = options;
    special.iou_power = p;
    CHECK(losses::task_aligned_metric_refusal(in, special).find("score_power and iou_power") == 0);
  }
}

TEST_CASE("the fused task-aligned metric gives the composed outputs bit for bit") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(11);
  auto in = on_cuda(random_inputs(3, 9, 40, 7));  // 1,600 anchors
  in.pred_boxes.index_put_({1, 5, 2}, std::numeric_limits<float>::quiet_NaN());
  const PolicyGuard on(sdk::FusedKernels::when_built, "task_aligned_metric");
  struct Powers {
    double score, iou;
  };
  for (const auto kind : {losses::IoUKind::iou, losses::IoUKind::giou, losses::IoUKind::diou, losses::IoUKind::ciou})
    for (const Powers p : {Powers{0.5, 6.0}, Powers{1.0, 2.0}, Powers{3.0, 0.25}})
      for (const double max_distance : {0.0, 14.99}) {
        INFO("kind ", static_cast<int>(kind), ", powers ", p.score, " and ", p.iou, ", max_distance ", max_distance);
        losses::TaskAlignedAssignerOptions options;
        options.iou_kind = kind;
        options.score_power = p.score;
        options.iou_power = p.iou;
        options.max_distance = max_distance;
        REQUIRE(losses::task_aligned_metric_refusal(in, options).empty());
        check_same(losses::task_aligned_metric(in, options), losses::task_aligned_metric_composed(in, options));
      }
}

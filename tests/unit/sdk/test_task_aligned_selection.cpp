// sdk::losses::task_aligned_selection (task_aligned_selection.hpp): the composed stages on a
// hand-checked case (a conflict, an orphan, a padding row), auto on the CPU falls back to them
// bit for bit, the refusals; on a CUDA machine the fused kernels give the composed outputs bit
// for bit (conflicts of two and three rows, orphans, padding rows, NaN metric and IoU).
#include "../torch_doctest.hpp"

#include <limits>
#include <string>

#include "../../../sdk/src/cuda/task_aligned_selection_device.cuh"  // the fused kernels' code, for the host
#include "../../../sdk/src/losses/task_aligned_selection_shape.hpp"
#include "fused_test_support.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/losses/task_aligned_selection.hpp"

namespace losses = libreyolo::sdk::losses;
namespace sdk = libreyolo::sdk;

namespace {

using libreyolo::test::fused_runnable;
using libreyolo::test::PolicyGuard;
using libreyolo::test::same_bits;

void check_same(const losses::Assignment& got, const losses::Assignment& want) {
  CHECK(same_bits(got.foreground, want.foreground));
  CHECK(same_bits(got.gt_index, want.gt_index));
  CHECK(same_bits(got.labels, want.labels));
  CHECK(same_bits(got.boxes, want.boxes));
  CHECK(same_bits(got.anchor_scores, want.anchor_scores));
  REQUIRE(got.scores.defined() == want.scores.defined());
  if (want.scores.defined()) CHECK(same_bits(got.scores, want.scores));
}

// Random metrics with crowding: every row's metric peaks on a few shared anchors (conflicts of
// two and three rows), some rows have no candidate but a positive metric (orphans), the last row
// of each image is padding (all zero), one row has a NaN metric and one a NaN IoU off its
// positives; and the edge cases below. Needs batch >= 2 and anchors >= 8.
losses::AlignmentMetric crowded(int64_t batch, int64_t rows, int64_t anchors, torch::Device device) {
  auto metric = torch::rand({batch, rows, anchors}) * (torch::rand({batch, rows, anchors}) > 0.7).to(torch::kFloat32);
  metric.narrow(2, 0, 3).add_(torch::rand({batch, rows, 3}) + 1.0);  // anchors 0-2 wanted by every row
  auto iou = torch::rand({batch, rows, anchors});
  auto candidate = metric * (torch::rand({batch, rows, anchors}) > 0.3).to(torch::kFloat32);
  candidate.select(1, 1).zero_();  // row 1 of every image: an orphan (positive metric, no candidate)
  metric.select(1, rows - 1).zero_();
  candidate.select(1, rows - 1).zero_();
  metric.index_put_({0, 2, anchors - 1}, std::numeric_limits<float>::quiet_NaN());
  iou.index_put_({batch - 1, 3, anchors - 2}, std::numeric_limits<float>::quiet_NaN());
  // The rules at their edges: image 0's orphan row holds a NaN metric (no best anchor then);
  // image 1's orphan has two equal best metrics (the lower anchor wins); every row has the same
  // IoU at anchor 0, which they all claim (the lowest row wins).
  metric.index_put_({0, 1, anchors - 3}, std::numeric_limits<float>::quiet_NaN());
  metric.index_put_({1, 1, 5}, 5.0f);
  metric.index_put_({1, 1, 7}, 5.0f);
  iou.select(2, 0).fill_(0.5f);
  return {iou.to(device), metric.to(device), candidate.to(device)};
}


// The fused kernels' per-row and per-item code (task_aligned_selection_device.cuh) run on the CPU
// in launch order, each row scanned whole (the kernels split a row's scan over a block's threads
// and combine the parts with the same rules), after the same top-k as the CUDA wrapper.
losses::Assignment run_kernel_code_on_host(const losses::AlignmentMetric& aligned, const torch::Tensor& labels_in,
                                           const torch::Tensor& boxes_in, int64_t classes,
                                           const losses::TaskAlignedAssignerOptions& options) {
  namespace fused = libreyolo::sdk::fused;
  const auto metric = aligned.metric.contiguous(), iou = aligned.iou.contiguous();
  const auto labels = labels_in.contiguous(), boxes = boxes_in.contiguous();
  const auto s = losses::selection_shape(metric, classes, options);
  const auto top = aligned.candidate_metric.topk(s.topk, -1);
  const auto top_values = std::get<0>(top).contiguous(), top_index = std::get<1>(top).contiguous();
  auto positive = torch::zeros({s.batch, s.rows, s.anchors}, torch::kUInt8);
  auto row_maxima = torch::empty({2, s.batch, s.rows});
  auto anchor_score = torch::empty({s.batch, s.anchors});
  losses::Assignment out{torch::empty({s.batch, s.anchors}, torch::kBool), torch::empty({s.batch, s.anchors}, torch::kLong),
                         torch::empty({s.batch, s.anchors}, torch::kLong), torch::empty({s.batch, s.anchors, 4}),
                         options.dense_scores ? torch::empty({s.batch, s.anchors, classes}) : torch::Tensor(),
                         anchor_score};
  const fused::SelectionInputs in{metric.data_ptr<float>(), iou.data_ptr<float>(), top_values.data_ptr<float>(),
                                  top_index.data_ptr<int64_t>(), labels.data_ptr<int64_t>(), boxes.data_ptr<float>()};
  const fused::SelectionOutputs o{positive.data_ptr<uint8_t>(),   row_maxima[0].data_ptr<float>(),
                                  row_maxima[1].data_ptr<float>(), anchor_score.data_ptr<float>(),
                                  out.foreground.data_ptr<bool>(), out.gt_index.data_ptr<int64_t>(),
                                  out.labels.data_ptr<int64_t>(),  out.boxes.data_ptr<float>(),
                                  out.scores.defined() ? out.scores.data_ptr<float>() : nullptr};
  const int64_t rows = s.batch * s.rows, anchors = s.batch * s.anchors;
  for (int64_t row = 0; row < rows; ++row) {
    fused::tas::mark_orphan(s, in, o, row, fused::tas::scan_row(s, in, row, 0, 1));
    for (int64_t j = 0; j < s.topk; ++j) fused::tas::mark_top(s, in, o, row, j);
  }
  for (int64_t i = 0; i < anchors; ++i) fused::tas::resolve_anchor(s, in, o, i);
  for (int64_t row = 0; row < rows; ++row) {
    const auto maxima = fused::tas::scan_maxima(s, in, o, row, 0, 1);
    o.metric_max[row] = maxima.metric;
    o.iou_max[row] = maxima.iou;
  }
  for (int64_t i = 0; i < anchors; ++i) fused::tas::score_anchor(s, in, o, i);
  if (o.scores != nullptr)
    for (int64_t i = 0; i < anchors * classes; ++i) fused::tas::score_class(s, o, i);
  return out;
}
}  // namespace

TEST_CASE("task_aligned_selection composed: a conflict keeps the higher IoU, an orphan takes its best anchor") {
  // One image, 4 rows (row 3 padding), 4 anchors, 2 classes, top-1.
  const auto metric = torch::tensor({0.9f, 0.5f, 0.f, 0.f, 0.8f, 0.f, 0.f, 0.3f, 0.f, 0.f, 0.4f, 0.1f, 0.f, 0.f, 0.f, 0.f})
                          .view({1, 4, 4});
  const auto iou = torch::tensor({0.6f, 0.5f, 0.f, 0.f, 0.7f, 0.f, 0.f, 0.2f, 0.f, 0.f, 0.5f, 0.1f, 0.f, 0.f, 0.f, 0.f})
                       .view({1, 4, 4});
  auto candidate = metric.clone();
  candidate.select(1, 2).zero_();  // row 2: no candidate, metric 0.4 at anchor 2: an orphan
  const auto labels = torch::tensor({0, 1, 1, 0}, torch::kLong).view({1, 4});
  const auto boxes = torch::arange(16, torch::kFloat32).view({1, 4, 4});
  losses::TaskAlignedAssignerOptions options;
  options.topk = 1;
  const auto out = losses::task_aligned_selection_composed({iou, metric, candidate}, labels, boxes, 2, options);
  // Anchor 0: rows 0 and 1 both take it; row 1's IoU (0.7) wins. Anchor 2: the orphan row 2.
  CHECK(torch::equal(out.foreground, torch::tensor({true, false, true, false}).view({1, 4})));
  CHECK(torch::equal(out.gt_index, torch::tensor({1, 0, 2, 0}, torch::kLong).view({1, 4})));
  CHECK(torch::equal(out.labels, torch::tensor({1, 0, 1, 0}, torch::kLong).view({1, 4})));
  CHECK(torch::equal(out.boxes.select(1, 2), boxes.select(1, 2)));
  // Scores: metric / (row's max metric + eps) * row's max IoU on the label's class.
  const auto expected = torch::tensor({0.f, 0.7f, 0.f, 0.f, 0.f, 0.5f, 0.f, 0.f}).view({1, 4, 2});
  CHECK(out.scores.allclose(expected, 0, 1e-6));
}

TEST_CASE("the fused task-aligned selection's code, run on the CPU, gives the composed outputs bit for bit") {
  torch::manual_seed(19);
  for (const int64_t anchors : {40, 300}) {
    const auto aligned = crowded(3, 9, anchors, torch::kCPU);
    const auto labels = torch::randint(0, 7, {3, 9}, torch::kLong);
    const auto boxes = torch::rand({3, 9, 4}) * 100.0;
    for (const bool ensure : {true, false})
      for (const int64_t topk : {1, 10, 64}) {
        INFO("anchors ", anchors, ", ensure_one_anchor ", ensure, ", topk ", topk);
        losses::TaskAlignedAssignerOptions options;
        options.ensure_one_anchor = ensure;
        options.topk = topk;
        options.dense_scores = topk != 10;  // both ways: the dense scores' launch is skipped without them
        const auto want = losses::task_aligned_selection_composed(aligned, labels, boxes, 7, options);
        CHECK(want.foreground.sum().item<int64_t>() > 0);
        check_same(run_kernel_code_on_host(aligned, labels, boxes, 7, options), want);
      }
  }
}

TEST_CASE("task_aligned_selection under auto on the CPU is the composed path bit for bit") {
  torch::manual_seed(5);
  const auto aligned = crowded(2, 6, 50, torch::kCPU);
  const auto labels = torch::randint(0, 4, {2, 6}, torch::kLong);
  const auto boxes = torch::rand({2, 6, 4});
  const losses::TaskAlignedAssignerOptions options;
  const auto want = losses::task_aligned_selection_composed(aligned, labels, boxes, 4, options);
  const PolicyGuard on(sdk::FusedKernels::when_built);
  check_same(losses::task_aligned_selection(aligned, labels, boxes, 4, options), want);
  const auto why = losses::task_aligned_selection_refusal(aligned, labels, boxes, 4);
  CHECK((why == "this build has no fused CUDA kernels" || why == "the inputs are not all on one CUDA device"));
}

TEST_CASE("task_aligned_selection without dense scores: anchor_scores alone, and dense_scores() makes the same tensor") {
  torch::manual_seed(5);
  const auto aligned = crowded(2, 6, 30, torch::kCPU);
  const auto labels = torch::randint(0, 4, {2, 6}, torch::kLong);
  const auto boxes = torch::rand({2, 6, 4}) * 50.0;
  losses::TaskAlignedAssignerOptions options;
  const auto dense = losses::task_aligned_selection_composed(aligned, labels, boxes, 4, options);
  options.dense_scores = false;
  const auto lean = losses::task_aligned_selection_composed(aligned, labels, boxes, 4, options);
  CHECK_FALSE(lean.scores.defined());
  REQUIRE(dense.scores.defined());
  CHECK(same_bits(lean.anchor_scores, dense.scores.sum(2)));  // one class per anchor: the sum is that score
  CHECK(same_bits(lean.anchor_scores, dense.anchor_scores));
  CHECK(same_bits(losses::dense_scores(lean, 4), dense.scores));
  CHECK(same_bits(losses::dense_scores(dense, 4), dense.scores));
  CHECK(torch::count_nonzero(dense.scores.gt(0).sum(2).gt(1)).item<int64_t>() == 0);
  CHECK(torch::count_nonzero(lean.anchor_scores).item<int64_t>() > 0);  // not a vacuous comparison
}

TEST_CASE("task_aligned_selection's refusals name what the kernels do not take") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto aligned = crowded(2, 5, 20, torch::kCUDA);
  const auto labels = torch::zeros({2, 5}, torch::TensorOptions().dtype(torch::kLong).device(torch::kCUDA));
  const auto boxes = torch::zeros({2, 5, 4}, torch::kCUDA);
  CHECK(losses::task_aligned_selection_refusal(aligned, labels, boxes, 3).empty());
  CHECK(losses::task_aligned_selection_refusal(aligned, labels.cpu(), boxes, 3) == "the inputs are not all on one CUDA device");
  CHECK(losses::task_aligned_selection_refusal(aligned, labels.to(torch::kInt), boxes, 3) == "labels must be int64");
  CHECK(losses::task_aligned_selection_refusal(aligned, labels.narrow(1, 0, 4), boxes, 3).find("the shapes") == 0);
  CHECK(losses::task_aligned_selection_refusal(aligned, labels, boxes, 0) == "classes must be positive");
}

TEST_CASE("the fused task-aligned selection gives the composed outputs bit for bit") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(13);
  const PolicyGuard on(sdk::FusedKernels::when_built, "task_aligned_selection");
  for (const int64_t anchors : {40, 1000}) {
    const auto aligned = crowded(3, 9, anchors, torch::kCUDA);
    const auto labels = torch::randint(0, 7, {3, 9}, torch::TensorOptions().dtype(torch::kLong).device(torch::kCUDA));
    const auto boxes = torch::rand({3, 9, 4}, torch::kCUDA) * 100.0;
    for (const bool ensure : {true, false})
      for (const int64_t topk : {1, 10, 64}) {
        INFO("anchors ", anchors, ", ensure_one_anchor ", ensure, ", topk ", topk);
        losses::TaskAlignedAssignerOptions options;
        options.ensure_one_anchor = ensure;
        options.topk = topk;
        options.dense_scores = topk != 10;  // both ways: the dense scores' launch is skipped without them
        REQUIRE(losses::task_aligned_selection_refusal(aligned, labels, boxes, 7).empty());
        check_same(losses::task_aligned_selection(aligned, labels, boxes, 7, options),
                   losses::task_aligned_selection_composed(aligned, labels, boxes, 7, options));
      }
  }
}

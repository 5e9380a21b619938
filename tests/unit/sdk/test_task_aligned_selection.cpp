// sdk::losses::task_aligned_selection (task_aligned_selection.hpp): the composed stages on a
// hand-checked case (a conflict, an orphan, a padding row), auto on the CPU falls back to them
// bit for bit, the refusals; on a CUDA machine the fused kernels give the composed outputs bit
// for bit (conflicts of two and three rows, orphans, padding rows, NaN metric and IoU).
#include "../torch_doctest.hpp"

#include <limits>
#include <string>

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
  CHECK(same_bits(got.scores, want.scores));
}

// Random metrics with crowding: every row's metric peaks on a few shared anchors (conflicts of
// two and three rows), some rows have no candidate but a positive metric (orphans), the last row
// of each image is padding (all zero), one row has a NaN metric and one a NaN IoU off its positives.
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
  return {iou.to(device), metric.to(device), candidate.to(device)};
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

TEST_CASE("task_aligned_selection's refusals name what the kernels do not take") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto aligned = crowded(1, 5, 20, torch::kCUDA);
  const auto labels = torch::zeros({1, 5}, torch::TensorOptions().dtype(torch::kLong).device(torch::kCUDA));
  const auto boxes = torch::zeros({1, 5, 4}, torch::kCUDA);
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
        REQUIRE(losses::task_aligned_selection_refusal(aligned, labels, boxes, 7).empty());
        check_same(losses::task_aligned_selection(aligned, labels, boxes, 7, options),
                   losses::task_aligned_selection_composed(aligned, labels, boxes, 7, options));
      }
  }
}

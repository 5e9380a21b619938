// sdk::losses::simota_selection (simota_selection.hpp): the composed stages on a hand-checked
// conflict, the fused kernels' own per-item code run on the CPU against the composed ops (every
// build), auto on the CPU falls back; on a CUDA machine the refusals name why and the fused
// kernels give the composed answers exactly (conflicts, ties, infinite and NaN costs, k of 0).
#include "../torch_doctest.hpp"

#include <limits>
#include <string>

#include "../../../sdk/src/cuda/simota_selection_device.cuh"  // the fused kernels' code, compiled for the host
#include "fused_test_support.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/losses/simota_selection.hpp"

namespace losses = libreyolo::sdk::losses;
namespace sdk = libreyolo::sdk;

namespace {

using libreyolo::test::fused_runnable;
using libreyolo::test::PolicyGuard;
using libreyolo::test::same_bits;

constexpr float kInf = std::numeric_limits<float>::infinity();

void check_same(const losses::SimOtaSelection& got, const losses::SimOtaSelection& want) {
  CHECK(torch::equal(got.foreground, want.foreground));
  CHECK(torch::equal(got.gt_index, want.gt_index));
  CHECK(same_bits(got.iou, want.iou));
}

// Crowded random costs: B images, M rows (the last padding: cost +inf, k 0), A anchors of which
// about a third are no candidate (+inf for every row); costs drawn from few values so that rows
// tie; a conflict decided by a NaN cost; k from 0 to topk. Needs rows >= 5 and anchors >= 3.
struct Case {
  losses::SimOtaCost cost;
  torch::Tensor dynamic_k;
};
Case random_case(int64_t batch, int64_t rows, int64_t anchors, int64_t topk) {
  auto cost = torch::randint(0, 6, {batch, rows, anchors}).to(torch::kFloat32) * 0.5f;
  const auto no_candidate = (torch::rand({batch, 1, anchors}) < 0.3).expand({batch, rows, anchors});
  cost = torch::where(no_candidate, torch::full({}, kInf), cost);
  cost.select(1, rows - 1).fill_(kInf);
  // Anchor 2 of image 0: rows 1 and 2 both take it (their unique cheapest, k >= 1), row 3's
  // cost there is NaN, and argmin's rule gives it to row 3 (a NaN wins, even after a lower cost).
  cost.index_put_({0, 3, 2}, std::numeric_limits<float>::quiet_NaN());
  cost.index_put_({0, 1, 2}, -1.0f);
  cost.index_put_({0, 2, 2}, -1.0f);
  const auto iou = torch::where(torch::isinf(cost), torch::zeros({}), torch::rand({batch, rows, anchors}));
  auto dynamic_k = torch::randint(0, topk + 1, {batch, rows});
  dynamic_k.select(1, rows - 1).fill_(0);
  dynamic_k.index_put_({0, 1}, 1);
  dynamic_k.index_put_({0, 2}, 1);
  return {{iou, cost, torch::ones({batch, anchors}, torch::kBool)}, dynamic_k};
}

// The fused kernels' per-item code (simota_selection_device.cuh) run on the CPU, after the same
// top-k as the composed path.
losses::SimOtaSelection run_kernel_code_on_host(const losses::SimOtaCost& cost, const torch::Tensor& dynamic_k,
                                                int64_t topk) {
  namespace fused = libreyolo::sdk::fused;
  fused::SimOtaSelectionShape s;
  s.batch = cost.cost.size(0);
  s.rows = cost.cost.size(1);
  s.anchors = cost.cost.size(2);
  s.topk = topk;
  const auto lowest = cost.cost.topk(topk, 2, /*largest=*/false, /*sorted=*/true);
  const auto lowest_cost = std::get<0>(lowest).contiguous(), lowest_index = std::get<1>(lowest).contiguous();
  const auto costs = cost.cost.contiguous(), ious = cost.iou.contiguous(), k = dynamic_k.contiguous();
  auto taken = torch::zeros({s.batch, s.rows, s.anchors}, torch::kUInt8);
  losses::SimOtaSelection out{torch::empty({s.batch, s.anchors}, torch::kBool),
                              torch::empty({s.batch, s.anchors}, torch::kLong), torch::empty({s.batch, s.anchors})};
  const fused::SimOtaSelectionInputs in{costs.data_ptr<float>(), ious.data_ptr<float>(), lowest_cost.data_ptr<float>(),
                                        lowest_index.data_ptr<int64_t>(), k.data_ptr<int64_t>()};
  const fused::SimOtaSelectionOutputs outputs{taken.data_ptr<uint8_t>(), out.foreground.data_ptr<bool>(),
                                              out.gt_index.data_ptr<int64_t>(), out.iou.data_ptr<float>()};
  for (int64_t j = 0; j < s.batch * s.rows * s.topk; ++j) fused::simota_select::mark_taken(s, in, outputs, j);
  for (int64_t i = 0; i < s.batch * s.anchors; ++i) fused::simota_select::assign_anchor(s, in, outputs, i);
  return out;
}

}  // namespace

TEST_CASE("simota_selection composed: each row's cheapest anchors, a conflict kept by the cheaper row") {
  // Row 0 takes its 2 cheapest anchors (0 and 1), row 1 its cheapest (1), row 2 is padding.
  // Anchor 1 is taken twice and goes to row 1 (cost 0.5 < 2); anchor 3 is no candidate.
  const auto cost = torch::tensor({1.f, 2.f, 5.f, kInf, 3.f, 4.f, 0.5f, 6.f, kInf, 7.f, kInf, kInf, kInf, kInf, kInf})
                        .view({1, 3, 5});
  const auto iou = torch::tensor({.9f, .8f, .1f, 0.f, .3f, .2f, .95f, .05f, 0.f, .1f, 0.f, 0.f, 0.f, 0.f, 0.f}).view({1, 3, 5});
  const auto dynamic_k = torch::tensor({2, 1, 0}, torch::kLong).view({1, 3});
  const auto out = losses::simota_selection_composed({iou, cost, torch::ones({1, 5}, torch::kBool)}, dynamic_k, 3);
  CHECK(torch::equal(out.foreground, torch::tensor({true, true, false, false, false}).view({1, 5})));
  CHECK(torch::equal(out.gt_index, torch::tensor({0, 1, 0, 0, 0}, torch::kLong).view({1, 5})));
  CHECK(torch::equal(out.iou, torch::tensor({.9f, .95f, 0.f, 0.f, 0.f}).view({1, 5})));
}

TEST_CASE("the fused SimOTA selection's code, run on the CPU, gives the composed answers") {
  torch::manual_seed(29);
  for (const int64_t topk : {1, 4, 10, 60}) {
    INFO("topk ", topk);
    const auto c = random_case(3, 9, 60, topk);
    const auto want = losses::simota_selection_composed(c.cost, c.dynamic_k, topk);
    CHECK(want.foreground.sum().item<int64_t>() > 0);
    CHECK(want.gt_index[0][2].item<int64_t>() == 3);  // the NaN row wins the conflict
    check_same(run_kernel_code_on_host(c.cost, c.dynamic_k, topk), want);
  }
}

TEST_CASE("simota_selection under auto on the CPU is the composed path") {
  torch::manual_seed(31);
  const auto c = random_case(2, 5, 30, 10);
  const auto want = losses::simota_selection_composed(c.cost, c.dynamic_k, 10);
  const PolicyGuard on(sdk::FusedKernels::when_built);
  check_same(losses::simota_selection(c.cost, c.dynamic_k, 10), want);
  const auto why = losses::simota_selection_refusal(c.cost, c.dynamic_k, 10);
  CHECK((why == "this build has no fused CUDA kernels" || why == "the inputs are not all on one CUDA device"));
}

TEST_CASE("simota_selection's refusals name what the kernels do not take") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto c = random_case(1, 6, 20, 5);
  const losses::SimOtaCost cost{c.cost.iou.cuda(), c.cost.cost.cuda(), c.cost.candidates.cuda()};
  const auto k = c.dynamic_k.cuda();
  CHECK(losses::simota_selection_refusal(cost, k, 5).empty());
  CHECK(losses::simota_selection_refusal(cost, k.cpu(), 5) == "the inputs are not all on one CUDA device");
  CHECK(losses::simota_selection_refusal(cost, k.to(torch::kInt), 5) == "dynamic_k must be int64");
  CHECK(losses::simota_selection_refusal(cost, k, 21) == "topk must be in [1, A]");
  CHECK(losses::simota_selection_refusal(cost, k.narrow(1, 0, 2), 5).find("the shapes do not match") == 0);
}

TEST_CASE("the fused SimOTA selection gives the composed answers") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(37);
  const PolicyGuard on(sdk::FusedKernels::when_built, "simota_selection");
  for (const int64_t topk : {1, 10, 64}) {
    INFO("topk ", topk);
    const auto c = random_case(4, 11, 1600, topk);
    const losses::SimOtaCost cost{c.cost.iou.cuda(), c.cost.cost.cuda(), c.cost.candidates.cuda()};
    const auto k = c.dynamic_k.cuda();
    REQUIRE(losses::simota_selection_refusal(cost, k, topk).empty());
    check_same(losses::simota_selection(cost, k, topk), losses::simota_selection_composed(cost, k, topk));
  }
}

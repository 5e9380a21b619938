// The batched SimOTA assigner (plugins/yolox/simota.cpp) on crafted cases worked out by hand,
// against LibreYOLO's own assignment (tests/fixtures/yolox/reference_loss.json), and the batched
// result against assigning each image alone.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/losses/simota_cost.hpp>
#include <libreyolo/sdk/targets.hpp>

#include <vector>

#include "yolox_detector.hpp"  // and head.hpp (a bare "head.hpp" here would find yolo9's)
#include "simota.hpp"
#include "yolox_fixture.hpp"

using namespace libreyolo::families::yolox;
namespace fixture = libreyolo::test::yolox;
namespace sdk = libreyolo::sdk;

namespace {

// Six anchors of stride 8 on row 2 (centre y = 2.5 * 8 = 20), columns 1, 2, 3, 4, 5, 7:
// centres x = 12, 20, 28, 36, 44, 60.
torch::Tensor crafted_grid() {
  return torch::tensor({1.f, 2.f, 2.f, 2.f, 3.f, 2.f, 4.f, 2.f, 5.f, 2.f, 7.f, 2.f}).view({6, 2});
}
torch::Tensor crafted_strides() { return torch::full({6, 1}, 8.0f); }

torch::Tensor boxes(std::vector<float> values) {
  const auto n = static_cast<int64_t>(values.size() / 4);
  return torch::tensor(values).view({n, 4});
}

// Two classes; every anchor scores 0 on class 0 and p on class 1, and every gt is class 1, so the
// class cost is exactly -log(p) (BCE(0, 0) = 0). Picking the wrong class column would make it
// BCE(0, 1) = 100 (log clamped at -100) everywhere and change the answers below.
torch::Tensor scores(std::vector<float> p) {
  const auto column = torch::tensor(p).view({-1, 1});
  return torch::cat({torch::zeros_like(column), column}, 1);
}

}  // namespace

TEST_CASE("simota: crafted batch of three images, every step checked by hand") {
  // gt A = (20, 20, 16, 16) = [12, 28] x [12, 28]; gt B = (36, 20, 16, 16) = [28, 44] x [12, 28].
  // Centre regions (half-side 1.5 * 8 = 12, open): A x in (8, 32), B x in (24, 48); y = 20 is in
  // both. So anchors 0, 1 see A only; 2 sees both; 3, 4 see B only; 5 (x = 60) sees neither and is
  // no candidate although its prediction is B exactly.
  //
  // Image 0: gts A, B. Predictions and their IoUs:
  //   a0 = A                       IoU(A) 1            IoU(B) 0 (edges touch at x = 28)
  //   a1 = (20, 20, 16, 8)         IoU(A) 128/256 = .5 IoU(B) 0
  //   a2 = (27, 20, 32, 16)        IoU(A) 256/512 = .5 IoU(B) 240/528 = .454545
  //   a3 = B                       IoU(A) 0            IoU(B) 1
  //   a4 = (36, 20, 16, 12)        IoU(A) 0            IoU(B) 192/256 = .75
  //   a5 = B                       (no candidate: contributes nothing)
  // dynamic k: A: int(1 + .5 + .5) = 2; B: int(1 + .75 + .454545) = int(2.2045) = 2 (with a5 it
  // would have been 3).
  // p = .2, .8, .9, .2, .1, .9; cost = -log p + 3 * -log(IoU + 1e-8) (+ 1e6 outside the region):
  //   A: a0 1.609438   a1 .223144 + 2.079442 = 2.302585   a2 .105361 + 2.079442 = 2.184802
  //      a3, a4 > 1e6                               -> A takes a0, a2
  //   B: a2 .105361 + 3 * .788457 = 2.470733   a3 1.609438   a4 2.302585 + 3 * .287682 = 3.165631
  //      a0, a1 > 1e6                               -> B takes a3, a2
  // a2 is taken twice: A's cost 2.184802 < B's 2.470733, so A keeps it.
  // Result: a0 -> A (IoU 1), a2 -> A (IoU .5), a3 -> B (IoU 1); a1, a4, a5 background.
  //
  // Image 1: gt A only (row 1 is padding). Candidates a0, a1, a2.
  //   a0 = A (IoU 1, p .1): 2.302585   a1 = (20, 16, 16, 8) (IoU .5, p .9): 2.184802
  //   a2 = (20, 20, 8, 8) (IoU 64/256 = .25, p .9): .105361 + 3 * 1.386294 = 4.264244
  //   a3, a4, a5 = A exactly but outside A's centre region.
  // k = int(1 + .5 + .25) = 1 -> a1 (better class score beats the perfect box): a1 -> A, IoU .5.
  //
  // Image 2: no gts: nothing is assigned.
  const auto a = std::vector<float>{20, 20, 16, 16}, b = std::vector<float>{36, 20, 16, 16};
  const auto pred0 = boxes({20, 20, 16, 16, 20, 20, 16, 8, 27, 20, 32, 16, 36, 20, 16, 16, 36, 20, 16, 12, 36, 20, 16, 16});
  const auto pred1 = boxes({20, 20, 16, 16, 20, 16, 16, 8, 20, 20, 8, 8, 20, 20, 16, 16, 20, 20, 16, 16, 20, 20, 16, 16});
  const auto pred = torch::stack({pred0, pred1, pred1});
  const auto score = torch::stack({scores({.2f, .8f, .9f, .2f, .1f, .9f}), scores({.1f, .9f, .9f, .9f, .9f, .9f}),
                                   scores({.9f, .9f, .9f, .9f, .9f, .9f})});
  const auto targets = sdk::pad_targets({fixture::box_rows({1.f, 20, 20, 16, 16, 1.f, 36, 20, 16, 16}),
                                         fixture::box_rows({1.f, 20, 20, 16, 16}), torch::zeros({0, 5})},
                                        torch::kCPU);
  const auto result = simota_assign(pred, score, crafted_grid(), crafted_strides(), targets.boxes.narrow(2, 1, 4),
                                    targets.boxes.select(2, 0), sdk::valid_mask(targets));

  CHECK(result.candidates.equal(torch::tensor({true, true, true, true, true, false, true, true, true, false, false,
                                               false, false, false, false, false, false, false})
                                    .view({3, 6})));
  CHECK(result.dynamic_k.equal(torch::tensor({2, 2, 1, 0, 0, 0}, torch::kLong).view({3, 2})));
  CHECK(result.foreground.equal(torch::tensor({true, false, true, true, false, false, false, true, false, false, false,
                                               false, false, false, false, false, false, false})
                                    .view({3, 6})));
  CHECK(result.gt_index[0].equal(torch::tensor({0, 0, 0, 1, 0, 0}, torch::kLong)));
  CHECK(result.gt_index[1][1].item<int64_t>() == 0);
  const auto expected_iou = torch::tensor(std::vector<float>{1, 0, .5, 1, 0, 0, 0, .5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}).view({3, 6});
  CHECK(torch::allclose(result.iou, expected_iou, 1e-6, 1e-6));
}

TEST_CASE("simota: an anchor outside every centre region is never assigned, even with a perfect box") {
  // One gt (36, 20, 16, 16) whose region is x in (24, 48); only anchor 5 (x = 60) predicts it
  // exactly with full confidence, anchors 2..4 predict far-away boxes (IoU 0).
  // k = max(1, int(0)) = 1: the cheapest candidate is taken anyway; a5 stays background.
  const auto pred = boxes({4, 4, 2, 2, 4, 4, 2, 2, 4, 4, 2, 2, 4, 4, 2, 2, 4, 4, 2, 2, 36, 20, 16, 16}).unsqueeze(0);
  // Candidates a2, a3, a4 (x 28, 36, 44) all have IoU 0: cost -log p + 3 * 18.420681; the best p wins.
  const auto score = scores({.5f, .5f, .3f, .6f, .4f, .99f}).unsqueeze(0);
  const auto targets = sdk::pad_targets({fixture::box_rows({1.f, 36, 20, 16, 16})}, torch::kCPU);
  const auto result = simota_assign(pred, score, crafted_grid(), crafted_strides(), targets.boxes.narrow(2, 1, 4),
                                    targets.boxes.select(2, 0), sdk::valid_mask(targets));
  CHECK(result.dynamic_k.item<int64_t>() == 1);
  CHECK(result.foreground[0].equal(torch::tensor({false, false, false, true, false, false})));
  CHECK(result.iou[0][3].item<float>() == 0.0f);
}

TEST_CASE("simota: the batched result equals assigning each image alone") {
  // Random predictions on a real 64 x 64 grid (84 anchors), 4 images with 3, 0, 5 and 1 gts; each
  // image alone is assigned with M = its own count, so padding must change nothing.
  torch::manual_seed(7);
  std::vector<torch::Tensor> levels;
  for (const int64_t side : {8, 4, 2}) levels.push_back(torch::zeros({1, 8, side, side}));
  const auto [grid, strides] = make_grid(levels);
  const int64_t anchors = grid.size(0), batch = 4;
  const auto centres = (grid + 0.5) * strides;
  const auto pred = torch::cat({centres.unsqueeze(0).expand({batch, anchors, 2}) + torch::randn({batch, anchors, 2}) * 4,
                                torch::rand({batch, anchors, 2}) * 30 + 4},
                               2);
  const auto score = torch::rand({batch, anchors, 3});
  std::vector<torch::Tensor> per_image;
  for (const int64_t count : {3, 0, 5, 1}) {
    const auto xy = torch::rand({count, 2}) * 56 + 4, wh = torch::rand({count, 2}) * 30 + 4;
    const auto cls = torch::randint(0, 3, {count, 1}).to(torch::kFloat32);
    per_image.push_back(torch::cat({cls, xy, wh}, 1));
  }
  const auto targets = sdk::pad_targets(per_image, torch::kCPU);
  const auto batched = simota_assign(pred, score, grid, strides, targets.boxes.narrow(2, 1, 4),
                                     targets.boxes.select(2, 0), sdk::valid_mask(targets));
  CHECK(batched.foreground.sum().item<int64_t>() > 5);
  for (int64_t i = 0; i < batch; ++i) {
    CAPTURE(i);
    const auto alone_targets = sdk::pad_targets({per_image[static_cast<size_t>(i)]}, torch::kCPU);
    const auto alone = simota_assign(pred.narrow(0, i, 1), score.narrow(0, i, 1), grid, strides,
                                     alone_targets.boxes.narrow(2, 1, 4), alone_targets.boxes.select(2, 0),
                                     sdk::valid_mask(alone_targets));
    CHECK(alone.foreground[0].equal(batched.foreground[i]));
    CHECK(alone.gt_index[0].equal(batched.gt_index[i]));
    CHECK(torch::allclose(alone.iou[0], batched.iou[i]));
  }
}

TEST_CASE("simota: LibreYOLO's assignment on the crafted loss fixture") {
  const auto reference = fixture::read_fixture("reference_loss.json");
  if (!reference) {
    MESSAGE("no reference_loss.json: run tests/python/yolox_reference_keys.py to compare with LibreYOLO");
    return;
  }
  const auto& crafted = (*reference)["crafted"];
  const auto raw = fixture::crafted_raw_outputs(crafted);
  const auto targets = fixture::crafted_targets(crafted);
  const auto p = flatten_outputs(raw);
  const auto [grid, strides] = make_grid(raw);
  const auto pred = torch::cat({(p.narrow(2, 0, 2) + grid) * strides, torch::exp(p.narrow(2, 2, 2)) * strides}, 2);
  const auto score = torch::sqrt(torch::sigmoid(p.narrow(2, 5, p.size(2) - 5)) * torch::sigmoid(p.narrow(2, 4, 1)));
  const auto result = simota_assign(pred, score, grid, strides, targets.boxes.narrow(2, 1, 4),
                                    targets.boxes.select(2, 0), sdk::valid_mask(targets));
  const auto& images = crafted["assignments"].items;
  REQUIRE(static_cast<int64_t>(images.size()) == result.foreground.size(0));
  for (size_t b = 0; b < images.size(); ++b) {
    CAPTURE(b);
    const auto& expected = images[b];
    std::vector<int64_t> foreground;
    for (int64_t a = 0; a < result.foreground.size(1); ++a)
      if (result.foreground[static_cast<int64_t>(b)][a].item<bool>()) foreground.push_back(a);
    REQUIRE(foreground.size() == expected["foreground"].items.size());
    for (size_t i = 0; i < foreground.size(); ++i) {
      CAPTURE(i);
      const auto anchor = foreground[i];
      CHECK(anchor == static_cast<int64_t>(expected["foreground"].items[i].number));
      CHECK(result.gt_index[static_cast<int64_t>(b)][anchor].item<int64_t>() ==
            static_cast<int64_t>(expected["gt_index"].items[i].number));
      CHECK(result.iou[static_cast<int64_t>(b)][anchor].item<double>() ==
            doctest::Approx(expected["iou"].items[i].number).epsilon(1e-5));
    }
  }
}

TEST_CASE("simota: gt_index and IoU equal the one-hot conflict resolution they replaced, bit for bit") {
  // A crowded image set (12 overlapping gts an image on 84 anchors) so that many anchors are taken
  // by several gts; the old stage 5 (a one-hot of the lowest-cost gt, argmax and an IoU sum over
  // rows) is recomputed from the SDK's cost stage and compared with simota_assign's answer.
  torch::manual_seed(23);
  std::vector<torch::Tensor> levels;
  for (const int64_t side : {8, 4, 2}) levels.push_back(torch::zeros({1, 8, side, side}));
  const auto [grid, strides] = make_grid(levels);
  const int64_t anchors = grid.size(0), batch = 3, rows = 12;
  const auto centres = (grid + 0.5) * strides;
  const auto pred = torch::cat({centres.unsqueeze(0).expand({batch, anchors, 2}) + torch::randn({batch, anchors, 2}) * 4,
                                torch::rand({batch, anchors, 2}) * 30 + 8},
                               2);
  const auto score = torch::rand({batch, anchors, 3});
  const auto gt_boxes = torch::cat({torch::rand({batch, rows, 2}) * 30 + 16, torch::rand({batch, rows, 2}) * 30 + 8}, 2);
  const auto labels = torch::randint(0, 3, {batch, rows});
  auto valid = torch::ones({batch, rows}, torch::kBool);
  valid.select(1, rows - 1).fill_(false);
  const auto got = simota_assign(pred, score, grid, strides, gt_boxes, labels, valid);

  const auto cost = sdk::losses::simota_cost_composed(
      {pred, score, grid, strides.reshape({anchors}), gt_boxes, labels, valid}, {});
  const auto [lowest_cost, lowest_index] = cost.cost.topk(10, 2, false, true);
  const auto rank = torch::arange(10, got.dynamic_k.options()).reshape({1, 1, 10});
  const auto take = torch::logical_and(rank < got.dynamic_k.unsqueeze(2), torch::isfinite(lowest_cost));
  auto matching = torch::zeros({batch, rows, anchors}).scatter_(2, lowest_index, take.to(torch::kFloat32));
  const auto takers = matching.sum(1);
  REQUIRE((takers > 1).sum().item<int64_t>() > 3);  // conflicts happen
  const auto best = cost.cost.argmin(1);
  const auto onehot = (torch::arange(rows, best.options()).reshape({1, rows, 1}) == best.unsqueeze(1)).to(torch::kFloat32);
  matching = torch::where((takers > 1).unsqueeze(1), onehot, matching);
  CHECK(torch::equal(got.foreground, takers > 0));
  CHECK(torch::equal(got.gt_index, torch::where(takers > 0, matching.argmax(1), torch::zeros({}, torch::kLong))));
  CHECK(torch::equal(got.iou, (matching * cost.iou).sum(1)));
}

// RTMDet's dynamic soft-label assigner (sdk/losses): crafted scenes whose costs are worked out by
// hand below, the reference's corner cases (padding columns in the tie-break, a gt whose k exceeds
// the candidates), and the vectorised assigner against a per-image, per-gt implementation of
// LibreYOLO's algorithm (rtmdet/loss.py, mmyolo's) on random batches.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/losses/anchors.hpp>
#include <libreyolo/sdk/losses/dynamic_soft_label_assigner.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace losses = libreyolo::sdk::losses;

namespace {

torch::Tensor rows_of(std::vector<float> values, int64_t width) {
  const auto n = static_cast<int64_t>(values.size()) / width;
  return torch::tensor(values, torch::kFloat32).view({n, width});
}

torch::Tensor bools(std::vector<int64_t> values) { return torch::tensor(values, torch::kLong).to(torch::kBool); }

// Two gts and seven priors (x, y, stride), all logits 0, two classes:
//   gt 0 = [0, 0, 20, 20] class 0 (centre 10, 10); gt 1 = [12, 12, 40, 40] class 1 (centre 26, 26);
//   a padding row holding garbage, [0, 0, 64, 64] of class 7, which must not count.
//   prior   point    stride  inside      predicted box
//   p0      (8, 8)   8       gt 0        [0, 0, 20, 20]    IoU gt0 1         gt1 64/1120 = 0.0571
//   p1      (16, 16) 8       gt 0, gt 1  [10, 10, 38, 38]  IoU gt0 100/1084  gt1 676/892 = 0.7578
//   p2      (32, 32) 16      gt 1        [20, 20, 44, 44]  IoU gt0 0         gt1 400/960 = 0.4167
//   p3      (24, 24) 8       gt 1        [16, 16, 30, 30]  IoU gt0 16/580    gt1 196/784 = 0.25
//   p4      (48, 8)  16      none        [40, 0, 56, 16]   IoU 0 with both
//   p5      (0, 0)   16      none (on gt 0's corner: not strictly inside)   [0, 0, 20, 20]
//   p6      (40, 40) 16      none (on gt 1's corner)                        [0, 0, 20, 20]
// Dynamic k (top-13 IoUs over ALL priors, candidates or not): gt 0: 1 (p0) + 1 (p5) + 1 (p6) +
// 0.0923 + 0.0276 = 3.12 -> k 3; gt 1: 0.7578 + 0.4167 + 0.25 + 3 * 0.0571 = 1.60 -> k 1.
// Costs, logit 0 so cls cost = ln 2 (IoU - 0.5)^2; IoU cost -3 ln(IoU + 1e-7); centre 10^(d / s - 3):
//   gt 0: p0 0.1733 + 0 + 0.0023 = 0.1755; p1 0.1152 + 7.1497 + 0.0115 = 7.2765;
//         p3 0.1547 + 10.7713 + 0.2985 = 11.2245; p2 (IoU 0) 0.1733 + 48.3543 + 0.0880 = 48.6156;
//         p4, p5, p6 1e8 (not candidates). Takes its 3 cheapest: p0, p1, p3 (p3 is inside gt 1 only).
//   gt 1: p1 0.0461 + 0.8318 + 0.0586 = 0.9365; p2 2.6346; p3 4.2045; p0 10.2430. Takes p1.
//   p1 is taken twice; its row: gt 0 7.2765, gt 1 0.9365, padding (zero box of class 0 at the
//   origin, IoU 0) 0.1733 + 48.3543 + 10^(sqrt(512) / 8 - 3) = 49.2012: it keeps gt 1.
// Result: p0 -> gt 0 (IoU 1), p1 -> gt 1 (676/892), p3 -> gt 0 (16/580); the rest background.
// Image 1 of the batch has only padding rows (garbage again): all background.
struct CraftedScene {
  torch::Tensor points, strides, pred_boxes, logits, gt_boxes, gt_labels, gt_valid;
};

CraftedScene crafted_scene() {
  CraftedScene s;
  s.points = rows_of({8, 8, 16, 16, 32, 32, 24, 24, 48, 8, 0, 0, 40, 40}, 2);
  s.strides = torch::tensor({8.f, 8.f, 16.f, 8.f, 16.f, 16.f, 16.f});
  const auto pred = rows_of({0, 0, 20, 20, 10, 10, 38, 38, 20, 20, 44, 44, 16, 16, 30, 30,
                             40, 0, 56, 16, 0, 0, 20, 20, 0, 0, 20, 20}, 4);
  s.pred_boxes = torch::stack({pred, pred});
  s.logits = torch::zeros({2, 7, 2});
  const auto garbage = rows_of({0, 0, 64, 64}, 4);
  s.gt_boxes = torch::stack({torch::cat({rows_of({0, 0, 20, 20, 12, 12, 40, 40}, 4), garbage}),
                             torch::cat({garbage, garbage, garbage})});
  s.gt_labels = torch::tensor({0, 1, 7, 1, 1, 1}, torch::kLong).view({2, 3});
  s.gt_valid = bools({1, 1, 0, 0, 0, 0}).view({2, 3});
  return s;
}

losses::SoftLabelAssignment assign(const CraftedScene& s, int64_t classes = 2,
                                   const losses::DynamicSoftLabelAssignerOptions& options = {}) {
  return losses::dynamic_soft_label_assign(s.pred_boxes, s.logits, s.points, s.strides, s.gt_boxes, s.gt_labels,
                                           s.gt_valid, classes, options);
}

}  // namespace

TEST_CASE("dsl assigner: crafted scene, a prior inside two gts, a gt taking a prior outside itself") {
  const auto scene = crafted_scene();
  const auto r = assign(scene);
  REQUIRE(r.labels.sizes() == torch::IntArrayRef({2, 7}));
  CHECK(torch::equal(r.foreground[0], bools({1, 1, 0, 1, 0, 0, 0})));
  CHECK(torch::equal(r.labels[0], torch::tensor({0, 1, 2, 0, 2, 2, 2}, torch::kLong)));
  CHECK(r.gt_index[0][0].item<int64_t>() == 0);
  CHECK(r.gt_index[0][1].item<int64_t>() == 1);
  CHECK(r.gt_index[0][3].item<int64_t>() == 0);
  CHECK(r.metrics[0][0].item<double>() == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(r.metrics[0][1].item<double>() == doctest::Approx(676.0 / 892).epsilon(1e-6));
  CHECK(r.metrics[0][3].item<double>() == doctest::Approx(16.0 / 580).epsilon(1e-6));
  CHECK(r.metrics[0].sum().item<double>() == doctest::Approx(1.0 + 676.0 / 892 + 16.0 / 580).epsilon(1e-6));
  CHECK(torch::equal(r.boxes[0][1], torch::tensor({12.f, 12.f, 40.f, 40.f})));
  CHECK(torch::equal(r.boxes[0][3], torch::tensor({0.f, 0.f, 20.f, 20.f})));
  CHECK(r.boxes[0][2].abs().sum().item<float>() == 0.0f);
  // Image 1: padding only.
  CHECK_FALSE(r.foreground[1].any().item<bool>());
  CHECK(torch::equal(r.labels[1], torch::full({7}, 2, torch::kLong)));
  CHECK(r.boxes[1].abs().sum().item<float>() == 0.0f);
  CHECK(r.metrics[1].abs().sum().item<float>() == 0.0f);
}

TEST_CASE("dsl assigner: padding rows' contents and the padding row itself do not matter here") {
  auto scene = crafted_scene();
  const auto with_garbage = assign(scene);
  scene.gt_boxes = scene.gt_boxes * scene.gt_valid.unsqueeze(2);  // zero padding, as LibreYOLO packs it
  scene.gt_labels = scene.gt_labels * scene.gt_valid;
  const auto with_zeros = assign(scene);
  CHECK(torch::equal(with_garbage.labels, with_zeros.labels));
  CHECK(torch::equal(with_garbage.boxes, with_zeros.boxes));
  CHECK(torch::equal(with_garbage.metrics, with_zeros.metrics));
  // Image 0 alone, without its padding row (M = 2): the same (padding costs 49.2 in p1's row,
  // more than gt 1's 0.94).
  auto alone = scene;
  alone.pred_boxes = scene.pred_boxes.narrow(0, 0, 1);
  alone.logits = scene.logits.narrow(0, 0, 1);
  alone.gt_boxes = scene.gt_boxes.narrow(0, 0, 1).narrow(1, 0, 2);
  alone.gt_labels = scene.gt_labels.narrow(0, 0, 1).narrow(1, 0, 2);
  alone.gt_valid = scene.gt_valid.narrow(0, 0, 1).narrow(1, 0, 2);
  const auto unpadded = assign(alone);
  CHECK(torch::equal(unpadded.labels[0], with_garbage.labels[0]));
  CHECK(torch::equal(unpadded.metrics[0], with_garbage.metrics[0]));
}

TEST_CASE("dsl assigner: topk bounds the dynamic k") {
  // topk 2: gt 0's k is the sum of its two best IoUs, 1 + 1 = 2, so it takes p0 and p1 only; p1
  // still goes to gt 1 and p3 is left as background.
  losses::DynamicSoftLabelAssignerOptions options;
  options.topk = 2;
  const auto r = assign(crafted_scene(), 2, options);
  CHECK(torch::equal(r.foreground[0], bools({1, 1, 0, 0, 0, 0, 0})));
  CHECK(r.gt_index[0][1].item<int64_t>() == 1);
}

TEST_CASE("dsl assigner: a shared prior whose cheapest column is a padding row (the reference's quirk)") {
  // One prior (A = 1 < topk) at (4, 4), stride 8, predicting [50, 50, 60, 60]: IoU 0 with everything,
  // inside both real gts [2, 2, 30, 30] and [1, 1, 40, 40] (class 1). Every column costs
  // ln 2 / 4 + 48.3543 (logit 0, IoU 0) plus the centre term: gt 0 (16, 16): 10^(16.97 / 8 - 3) = 0.1317;
  // gt 1 (20.5, 20.5): 10^(23.33 / 8 - 3) = 0.8262; the padding row, a zero box at the origin:
  // 10^(5.657 / 8 - 3) = 0.0051. k = 1 for both gts, both take the prior, and its row's argmin is
  // the padding column: foreground, gt_index 2, class 0, a zero box, IoU 0 (as in LibreYOLO).
  const auto r = losses::dynamic_soft_label_assign(
      rows_of({50, 50, 60, 60}, 4).unsqueeze(0), torch::zeros({1, 1, 2}), rows_of({4, 4}, 2), torch::tensor({8.f}),
      rows_of({2, 2, 30, 30, 1, 1, 40, 40, 30, 30, 90, 90}, 4).unsqueeze(0),
      torch::tensor({1, 1, 1}, torch::kLong).view({1, 3}), bools({1, 1, 0}).view({1, 3}), 2);
  CHECK(r.foreground[0][0].item<bool>());
  CHECK(r.gt_index[0][0].item<int64_t>() == 2);
  CHECK(r.labels[0][0].item<int64_t>() == 0);
  CHECK(r.boxes.abs().sum().item<float>() == 0.0f);
  CHECK(r.metrics[0][0].item<float>() == 0.0f);
}

TEST_CASE("dsl assigner: a gt whose k exceeds the image's candidates takes a non-candidate") {
  // Two priors (A = 2 < topk, so k uses the top 2 IoUs), both predicting the gt [0, 0, 20, 20]
  // exactly: k = 1 + 1 = 2. Only p0 (8, 8) is inside; p1 (40, 40) costs 1e8 but is the gt's second
  // cheapest, so the reference takes it too: both foreground, IoU 1.
  const auto pred = rows_of({0, 0, 20, 20, 0, 0, 20, 20}, 4).unsqueeze(0);
  const auto r = losses::dynamic_soft_label_assign(pred, torch::zeros({1, 2, 3}), rows_of({8, 8, 40, 40}, 2),
                                                   torch::full({2, 1}, 8.f), rows_of({0, 0, 20, 20}, 4).unsqueeze(0),
                                                   torch::tensor({{2}}, torch::kLong), bools({1}).view({1, 1}), 3);
  CHECK(torch::equal(r.foreground, bools({1, 1}).view({1, 2})));
  CHECK(torch::equal(r.labels, torch::tensor({{2, 2}}, torch::kLong)));
  CHECK(torch::allclose(r.metrics, torch::ones({1, 2})));
}

TEST_CASE("dsl assigner: no gt rows, shapes and dtypes, zero-size boxes, float16 input") {
  torch::manual_seed(5);
  const auto grid = losses::make_anchors({{4, 4}, {2, 2}}, {8, 16}, torch::kCPU, 0.0);  // 20 priors
  const auto pred = torch::cat({grid.points - 6, grid.points + 10}, 1).unsqueeze(0).expand({2, 20, 4}).contiguous();
  const auto logits = torch::randn({2, 20, 3});

  // M = 0: everything background, the documented shapes and dtypes.
  const auto empty = losses::dynamic_soft_label_assign(pred, logits, grid.points, grid.strides,
                                                       torch::zeros({2, 0, 4}), torch::zeros({2, 0}, torch::kLong),
                                                       torch::zeros({2, 0}, torch::kBool), 3);
  CHECK(torch::equal(empty.labels, torch::full({2, 20}, 3, torch::kLong)));
  CHECK(empty.boxes.sizes() == torch::IntArrayRef({2, 20, 4}));
  CHECK((empty.boxes.scalar_type() == torch::kFloat32));
  CHECK((empty.metrics.scalar_type() == torch::kFloat32));
  CHECK((empty.foreground.scalar_type() == torch::kBool));
  CHECK((empty.gt_index.scalar_type() == torch::kLong));
  CHECK_FALSE(empty.foreground.any().item<bool>());

  // Zero-size gts (a point, a line) next to an ordinary one, and a zero-size prediction: finite.
  const auto gts = torch::stack({rows_of({10, 10, 10, 10, 4, 4, 4, 20, 2, 2, 26, 26}, 4),
                                 rows_of({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 4)});
  const auto labels = torch::tensor({0, 1, 2, 0, 0, 0}, torch::kLong).view({2, 3});
  const auto valid = bools({1, 1, 1, 1, 0, 0}).view({2, 3});
  auto degenerate_pred = pred.clone();
  degenerate_pred[0][0] = torch::tensor({3.f, 3.f, 3.f, 3.f});
  const auto r = losses::dynamic_soft_label_assign(degenerate_pred, logits, grid.points, grid.strides, gts, labels,
                                                   valid, 3);
  CHECK((r.labels.scalar_type() == torch::kLong));
  CHECK(torch::isfinite(r.metrics).all().item<bool>());
  CHECK(torch::isfinite(r.boxes).all().item<bool>());
  CHECK(r.foreground[0].any().item<bool>());

  // float16 predictions: the same as their float32 values (the math is float32).
  const auto half = losses::dynamic_soft_label_assign(pred.to(torch::kHalf), logits.to(torch::kHalf), grid.points,
                                                      grid.strides, gts, labels, valid, 3);
  const auto widened = losses::dynamic_soft_label_assign(pred.to(torch::kHalf).to(torch::kFloat32),
                                                         logits.to(torch::kHalf).to(torch::kFloat32), grid.points,
                                                         grid.strides, gts, labels, valid, 3);
  CHECK((half.metrics.scalar_type() == torch::kFloat32));
  CHECK(torch::equal(half.labels, widened.labels));
  CHECK(torch::equal(half.metrics, widened.metrics));
}

namespace {

// LibreYOLO's assigner for one image, written the straightforward way: a cost column per gt
// row (padding rows packed as a zero box of class 0, as its loss packs them; their columns are
// costed too), a stable sort per valid gt taking its k cheapest priors, then a loop over the
// priors taken more than once, each keeping the first column of least cost in its row.
struct ImageAssignment {
  std::vector<int64_t> labels, gt_index;
  std::vector<bool> foreground;
  std::vector<float> metrics;
  torch::Tensor boxes;               // [A, 4]
  int64_t non_candidates_taken = 0;  // picks of cost 1e8: ties, which the comparison must not meet
};

constexpr float kNonCandidate = 1e8f;

// The cost of every prior for one gt box of class `label`, and the IoUs it is built from.
std::pair<torch::Tensor, torch::Tensor> cost_column(const torch::Tensor& pred, const torch::Tensor& logits,
                                                    const torch::Tensor& points, const torch::Tensor& strides,
                                                    const torch::Tensor& box, int64_t label,
                                                    const torch::Tensor& candidate) {
  const auto px1 = pred.select(1, 0), py1 = pred.select(1, 1), px2 = pred.select(1, 2), py2 = pred.select(1, 3);
  const auto gx1 = box[0], gy1 = box[1], gx2 = box[2], gy2 = box[3];
  const auto inter = (torch::min(px2, gx2) - torch::max(px1, gx1)).clamp_min(0) *
                     (torch::min(py2, gy2) - torch::max(py1, gy1)).clamp_min(0);
  const auto uni = (px2 - px1) * (py2 - py1) + (gx2 - gx1) * (gy2 - gy1) - inter;
  const auto iou = inter / uni.clamp_min(1e-7);
  const auto dx = points.select(1, 0) - (gx1 + gx2) * 0.5, dy = points.select(1, 1) - (gy1 + gy2) * 0.5;
  const auto centre = torch::pow(10.0, (dx * dx + dy * dy).sqrt() / strides - 3.0);
  const auto x = logits.select(1, label);
  const auto cls = torch::binary_cross_entropy_with_logits(x, iou, {}, {}, at::Reduction::None) *
                   (iou - x.sigmoid()).abs().pow(2);
  const auto cost = cls + -torch::log(iou + 1e-7) * 3.0 + centre;
  return {torch::where(candidate, cost, torch::full_like(cost, kNonCandidate)), iou};
}

size_t u(int64_t i) { return static_cast<size_t>(i); }

// Priors strictly inside at least one of the first `count` (valid) boxes.
torch::Tensor reference_candidates(const torch::Tensor& points, const torch::Tensor& boxes, int64_t count) {
  auto candidate = torch::zeros({points.size(0)}, torch::kBool);
  const auto x = points.select(1, 0), y = points.select(1, 1);
  for (int64_t j = 0; j < count; ++j) {
    const auto b = boxes[j];
    candidate = candidate | ((x > b[0]) & (y > b[1]) & (x < b[2]) & (y < b[3]));
  }
  return candidate;
}

// The first column of least cost in prior a's row (what argmin returns).
int64_t cheapest_column(const std::vector<torch::Tensor>& costs, int64_t a) {
  int64_t best = 0;
  for (size_t j = 1; j < costs.size(); ++j)
    if (costs[j][a].item<float>() < costs[u(best)][a].item<float>()) best = static_cast<int64_t>(j);
  return best;
}

ImageAssignment reference_assign(const torch::Tensor& pred, const torch::Tensor& logits, const torch::Tensor& points,
                                 const torch::Tensor& strides, const torch::Tensor& gt_boxes,
                                 const torch::Tensor& gt_labels, int64_t count, int64_t classes) {
  const int64_t priors = pred.size(0), rows = gt_boxes.size(0);
  const auto boxes = torch::zeros({rows, 4});
  boxes.narrow(0, 0, count).copy_(gt_boxes.narrow(0, 0, count));
  std::vector<int64_t> labels(u(rows), 0);
  for (int64_t j = 0; j < count; ++j) labels[u(j)] = gt_labels[j].item<int64_t>();
  const auto candidate = reference_candidates(points, boxes, count);
  std::vector<torch::Tensor> costs, ious;
  for (int64_t j = 0; j < rows; ++j) {
    auto [cost, iou] = cost_column(pred, logits, points, strides, boxes[j], labels[u(j)], candidate);
    costs.push_back(cost);
    ious.push_back(iou);
  }

  ImageAssignment out;
  std::vector<std::vector<bool>> taken(u(priors), std::vector<bool>(u(rows), false));
  for (int64_t j = 0; j < count; ++j) {
    const auto best_ious = std::get<0>(ious[u(j)].sort(0, true)).narrow(0, 0, std::min<int64_t>(13, priors));
    const int64_t k = std::max<int64_t>(1, best_ious.sum().to(torch::kInt).item<int64_t>());
    const auto order = std::get<1>(costs[u(j)].sort(/*stable=*/true, 0, /*descending=*/false));
    for (int64_t r = 0; r < k; ++r) {
      const int64_t a = order[r].item<int64_t>();
      taken[u(a)][u(j)] = true;
      out.non_candidates_taken += costs[u(j)][a].item<float>() >= kNonCandidate;
    }
  }
  out.boxes = torch::zeros({priors, 4});
  for (int64_t a = 0; a < priors; ++a) {
    const auto& row = taken[u(a)];
    const auto claims = std::count(row.begin(), row.end(), true);
    const int64_t first = std::find(row.begin(), row.end(), true) - row.begin();
    const int64_t chosen = claims > 1 ? cheapest_column(costs, a) : first;
    out.foreground.push_back(claims > 0);
    out.gt_index.push_back(claims > 0 ? chosen : 0);
    out.labels.push_back(claims > 0 ? labels[u(chosen)] : classes);
    out.metrics.push_back(claims > 0 ? ious[u(chosen)][a].item<float>() : 0.0f);
    if (claims > 0) out.boxes[a].copy_(boxes[chosen]);
  }
  return out;
}

}  // namespace

TEST_CASE("dsl assigner: the vectorised batch equals a per-image, per-gt implementation on random scenes") {
  // A 96 x 96 input, priors at cell corners of strides 8, 16, 32 (144 + 36 + 9 = 189), B = 3,
  // M = 6 rows with 6, 1..5 and 0..2 real boxes (padding holds garbage), 5 classes, random logits,
  // predictions around each prior with random side distances (some negative: inverted boxes,
  // IoU 0). Costs are continuous random values: no ties, so the picks must agree exactly.
  const auto grid = losses::make_anchors({{12, 12}, {6, 6}, {3, 3}}, {8, 16, 32}, torch::kCPU, 0.0);
  const int64_t batch = 3, priors = 189, rows = 6, classes = 5;
  int64_t foreground_seen = 0;
  for (int seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    torch::manual_seed(seed);
    const std::vector<int64_t> counts = {6, 1 + seed % 5, seed % 3};
    const auto sides = torch::randn({batch, priors, 4}) * 12 + 16;
    const auto pred = torch::cat({grid.points - sides.narrow(2, 0, 2), grid.points + sides.narrow(2, 2, 2)}, 2);
    const auto logits = torch::randn({batch, priors, classes}) * 2;
    const auto centres = torch::rand({batch, rows, 2}) * 80 + 8, sizes = torch::rand({batch, rows, 2}) * 40 + 24;
    const auto gt_boxes = torch::cat({centres - sizes / 2, centres + sizes / 2}, 2);
    const auto gt_labels = torch::randint(0, classes, {batch, rows});
    const auto valid = torch::arange(rows).unsqueeze(0) < torch::tensor(counts, torch::kLong).unsqueeze(1);
    const auto r = losses::dynamic_soft_label_assign(pred, logits, grid.points, grid.strides, gt_boxes, gt_labels,
                                                     valid, classes);
    for (int64_t b = 0; b < batch; ++b) {
      CAPTURE(b);
      const auto ref = reference_assign(pred[b], logits[b], grid.points, grid.strides.flatten(), gt_boxes[b],
                                        gt_labels[b], counts[u(b)], classes);
      REQUIRE(ref.non_candidates_taken == 0);  // otherwise the scene has cost ties (all 1e8)
      CHECK(torch::equal(r.foreground[b], torch::tensor(std::vector<int64_t>(ref.foreground.begin(),
                                                                             ref.foreground.end())).to(torch::kBool)));
      CHECK(torch::equal(r.labels[b], torch::tensor(ref.labels, torch::kLong)));
      CHECK(torch::equal(r.gt_index[b], torch::tensor(ref.gt_index, torch::kLong)));
      CHECK(torch::equal(r.boxes[b], ref.boxes));
      CHECK(torch::allclose(r.metrics[b], torch::tensor(ref.metrics), 0.0, 1e-7));
      foreground_seen += r.foreground[b].sum().item<int64_t>();
    }
  }
  CHECK(foreground_seen > 50);
}

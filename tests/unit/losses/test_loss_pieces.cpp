// The SDK's shared detection-loss pieces (sdk/losses): box ops and CIoU, DFL, anchor points and
// the task-aligned assigner, on crafted inputs whose answers are worked out by hand below.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/losses/anchors.hpp>
#include <libreyolo/sdk/losses/box_ops.hpp>
#include <libreyolo/sdk/losses/dfl.hpp>
#include <libreyolo/sdk/losses/task_aligned_assigner.hpp>
#include <libreyolo/sdk/targets.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace losses = libreyolo::sdk::losses;

namespace {

torch::Tensor boxes(std::vector<float> values) {
  const auto n = static_cast<int64_t>(values.size()) / 4;
  return torch::tensor(values, torch::kFloat32).view({n, 4});
}

float value_at(const torch::Tensor& t, std::vector<int64_t> index) {
  auto v = t;
  for (auto i : index) v = v[i];
  return v.item<float>();
}

}  // namespace

TEST_CASE("box_ops: xywh <-> xyxy") {
  const auto xywh = torch::tensor({10.f, 20.f, 4.f, 6.f}).view({1, 4});
  const auto xyxy = losses::xywh_to_xyxy(xywh);
  CHECK(torch::allclose(xyxy, torch::tensor({8.f, 17.f, 12.f, 23.f}).view({1, 4})));
  CHECK(torch::allclose(losses::xyxy_to_xywh(xyxy), xywh));
}

TEST_CASE("box_ops: IoU family on crafted boxes") {
  // a = [0,0,2,2], b = [1,1,3,3]: intersection 1, union 4 + 4 - 1 = 7 -> IoU 1/7.
  // Enclosing box [0,0,3,3]: area 9, diagonal^2 18. Centres (1,1), (2,2): distance^2 2.
  // GIoU = 1/7 - (9 - 7)/9 = -5/63. DIoU = 1/7 - 2/18 = 2/63. Same aspect ratio: v = 0, CIoU = DIoU.
  const auto a = boxes({0, 0, 2, 2}), b = boxes({1, 1, 3, 3});
  CHECK(value_at(losses::box_iou(a, b), {0}) == doctest::Approx(1.0 / 7).epsilon(1e-5));
  CHECK(value_at(losses::box_iou(a, b, losses::IoUKind::giou), {0}) == doctest::Approx(-5.0 / 63).epsilon(1e-5));
  CHECK(value_at(losses::box_iou(a, b, losses::IoUKind::diou), {0}) == doctest::Approx(2.0 / 63).epsilon(1e-5));
  CHECK(value_at(losses::box_iou(a, b, losses::IoUKind::ciou), {0}) == doctest::Approx(2.0 / 63).epsilon(1e-5));

  // c = [0,0,4,2] (w 4, h 2), d = [0,0,2,2]: intersection 4, union 8 + 4 - 4 = 8 -> IoU 0.5.
  // Enclosing [0,0,4,2]: diagonal^2 = 16 + 4 = 20; centres (2,1), (1,1): distance^2 1.
  // DIoU = 0.5 - 1/20 = 0.45. v = 4/pi^2 (atan(4/2) - atan(2/2))^2 = 0.0419564,
  // alpha = v / (v - IoU + 1) = 0.0774164, CIoU = 0.45 - alpha v = 0.4467519.
  const auto c = boxes({0, 0, 4, 2}), d = boxes({0, 0, 2, 2});
  const double v = 4.0 / (M_PI * M_PI) * std::pow(std::atan(2.0) - std::atan(1.0), 2);
  const double alpha = v / (v - 0.5 + 1.0);
  CHECK(v == doctest::Approx(0.0419564).epsilon(1e-5));
  CHECK(value_at(losses::box_iou(c, d, losses::IoUKind::ciou), {0}) == doctest::Approx(0.45 - alpha * v).epsilon(1e-5));
  CHECK(0.45 - alpha * v == doctest::Approx(0.4467519).epsilon(1e-5));

  // Identical boxes: every variant is 1. Disjoint boxes: IoU 0, CIoU negative.
  CHECK(value_at(losses::box_iou(c, c, losses::IoUKind::ciou), {0}) == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(value_at(losses::box_iou(a, boxes({5, 5, 7, 7}), losses::IoUKind::ciou), {0}) < 0.0f);
}

TEST_CASE("box_ops: pairwise IoU shapes and values, batched") {
  const auto a = boxes({0, 0, 2, 2, 0, 0, 4, 2});            // 2 boxes
  const auto b = boxes({1, 1, 3, 3, 0, 0, 2, 2, 9, 9, 10, 10});  // 3 boxes
  const auto pair = losses::pairwise_box_iou(a, b);
  REQUIRE(pair.sizes() == torch::IntArrayRef({2, 3}));
  CHECK(value_at(pair, {0, 0}) == doctest::Approx(1.0 / 7).epsilon(1e-5));
  CHECK(value_at(pair, {0, 1}) == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(value_at(pair, {1, 1}) == doctest::Approx(0.5).epsilon(1e-5));
  CHECK(value_at(pair, {1, 2}) == doctest::Approx(0.0));
  // Batched: [B, N, 4] x [B, K, 4] -> [B, N, K], equal to the per-image result.
  const auto batched = losses::pairwise_box_iou(torch::stack({a, a}), torch::stack({b, b}), losses::IoUKind::ciou);
  REQUIRE(batched.sizes() == torch::IntArrayRef({2, 2, 3}));
  CHECK(torch::allclose(batched[1], losses::pairwise_box_iou(a, b, losses::IoUKind::ciou)));
}

TEST_CASE("box_ops: CIoU gradient flows to the first box only through the differentiable terms") {
  auto a = boxes({0, 0, 4, 2}).requires_grad_(true);
  const auto loss = (1.0 - losses::box_iou(a, boxes({1, 0, 3, 3}), losses::IoUKind::ciou)).sum();
  loss.backward();
  REQUIRE(a.grad().defined());
  CHECK(torch::isfinite(a.grad()).all().item<bool>());
  CHECK(a.grad().abs().sum().item<float>() > 0.0f);
}

namespace {

// The IoU family written axis by axis, as LibreYOLO writes it: what box_iou's paired (x, y)
// form must reproduce.
torch::Tensor axis_by_axis_iou(const torch::Tensor& a, const torch::Tensor& b, losses::IoUKind kind) {
  const double eps = 1e-7;
  const auto ax1 = a.select(-1, 0), ay1 = a.select(-1, 1), ax2 = a.select(-1, 2), ay2 = a.select(-1, 3);
  const auto bx1 = b.select(-1, 0), by1 = b.select(-1, 1), bx2 = b.select(-1, 2), by2 = b.select(-1, 3);
  const auto aw = ax2 - ax1, ah = ay2 - ay1, bw = bx2 - bx1, bh = by2 - by1;
  const auto inter = (torch::min(ax2, bx2) - torch::max(ax1, bx1)).clamp_min(0) *
                     (torch::min(ay2, by2) - torch::max(ay1, by1)).clamp_min(0);
  const auto uni = aw * ah + bw * bh - inter;
  const auto iou = inter / (uni + eps);
  if (kind == losses::IoUKind::iou) return iou;
  const auto cw = torch::max(ax2, bx2) - torch::min(ax1, bx1);
  const auto ch = torch::max(ay2, by2) - torch::min(ay1, by1);
  if (kind == losses::IoUKind::giou) {
    const auto enclosing = cw * ch + eps;
    return iou - (enclosing - uni) / enclosing;
  }
  const auto diagonal = cw.pow(2) + ch.pow(2) + eps;
  const auto centre_distance = ((ax1 + ax2) - (bx1 + bx2)).pow(2) * 0.25 + ((ay1 + ay2) - (by1 + by2)).pow(2) * 0.25;
  const auto diou = iou - centre_distance / diagonal;
  if (kind == losses::IoUKind::diou) return diou;
  const auto v = (torch::atan(aw / (ah + eps)) - torch::atan(bw / (bh + eps))).pow(2) * (4.0 / (M_PI * M_PI));
  const auto alpha = (v / (v - iou + (1.0 + eps))).detach();
  return diou - alpha * v;
}

torch::Tensor random_xyxy(int64_t n, double spread) {
  const auto centre = torch::rand({n, 2}) * spread, size = torch::rand({n, 2}) * spread * 0.5 + 0.5;
  return torch::cat({centre - size / 2, centre + size / 2}, 1);
}

}  // namespace

TEST_CASE("box_ops: the paired (x, y) IoU family equals the axis-by-axis formulas, values and gradients") {
  torch::manual_seed(7);
  // Overlapping, nested, disjoint and touching boxes, element-wise and pairwise (broadcast).
  const auto a = random_xyxy(300, 20), b = random_xyxy(300, 20);
  const auto touching = boxes({0, 0, 2, 2}), neighbour = boxes({2, 0, 4, 2});
  for (const auto kind : {losses::IoUKind::iou, losses::IoUKind::giou, losses::IoUKind::diou, losses::IoUKind::ciou}) {
    CAPTURE(static_cast<int>(kind));
    CHECK(torch::equal(losses::box_iou(a, b, kind), axis_by_axis_iou(a, b, kind)));
    CHECK(torch::equal(losses::box_iou(a.unsqueeze(1), b.narrow(0, 0, 40).unsqueeze(0), kind),
                       axis_by_axis_iou(a.unsqueeze(1), b.narrow(0, 0, 40).unsqueeze(0), kind)));
    CHECK(torch::equal(losses::box_iou(touching, neighbour, kind), axis_by_axis_iou(touching, neighbour, kind)));

    auto ours = a.clone().requires_grad_(true), theirs = a.clone().requires_grad_(true);
    const auto weights = torch::rand({300});
    (losses::box_iou(ours, b, kind) * weights).sum().backward();
    (axis_by_axis_iou(theirs, b, kind) * weights).sum().backward();
    const double scale = theirs.grad().abs().max().item<double>();
    CHECK((ours.grad() - theirs.grad()).abs().max().item<double>() <= 1e-6 * scale);
  }
}

TEST_CASE("dfl: integral decode and the loss on a crafted distribution") {
  // softmax(log p) = p = (0.1, 0.2, 0.3, 0.4): expectation 0*0.1 + 1*0.2 + 2*0.3 + 3*0.4 = 2.0.
  const auto logits = torch::log(torch::tensor({0.1f, 0.2f, 0.3f, 0.4f})).view({1, 4});
  CHECK(value_at(losses::dfl_decode(logits), {0}) == doctest::Approx(2.0).epsilon(1e-5));

  // t = 1.25: bins 1 and 2, weights 0.75 and 0.25: -(0.75 ln 0.2 + 0.25 ln 0.3) = 1.5080716.
  // t = 2.0: bins 2 and 3, weights 1 and 0: -ln 0.3 = 1.2039728.
  // t = 3.5: clamped to reg_max - 1.01 = 2.99: -(0.01 ln 0.3 + 0.99 ln 0.4) = 0.9191675.
  const auto three = logits.expand({3, 4});
  const auto loss = losses::dfl_loss(three, torch::tensor({1.25f, 2.0f, 3.5f}));
  REQUIRE(loss.sizes() == torch::IntArrayRef({3}));
  CHECK(value_at(loss, {0}) == doctest::Approx(1.5080716).epsilon(1e-5));
  CHECK(value_at(loss, {1}) == doctest::Approx(1.2039728).epsilon(1e-5));
  CHECK(value_at(loss, {2}) == doctest::Approx(0.9191675).epsilon(1e-5));

  // Minimising it moves the expectation onto the target.
  auto x = torch::zeros({1, 16}).requires_grad_(true);
  torch::optim::Adam adam({x}, torch::optim::AdamOptions(0.1));
  for (int i = 0; i < 300; ++i) {
    adam.zero_grad();
    losses::dfl_loss(x, torch::tensor({6.3f})).sum().backward();
    adam.step();
  }
  CHECK(value_at(losses::dfl_decode(x.detach()), {0}) == doctest::Approx(6.3).epsilon(0.02));
}

TEST_CASE("dfl: bbox <-> distances") {
  const auto point = torch::tensor({5.f, 5.f}).view({1, 2});
  const auto box = boxes({2, 4, 9, 6});
  const auto d = losses::bbox_to_distance(point, box, 100.0);
  CHECK(torch::allclose(d, torch::tensor({3.f, 1.f, 4.f, 1.f}).view({1, 4})));
  CHECK(torch::allclose(losses::distance_to_bbox(d, point), box));
  // Clamped into [0, max]: a point outside the box gets 0 on that side.
  CHECK(torch::allclose(losses::bbox_to_distance(point, boxes({6, 0, 20, 8}), 10.0),
                        torch::tensor({0.f, 5.f, 10.f, 3.f}).view({1, 4})));
}

TEST_CASE("anchors: a tiny two-level input") {
  // Input 8 x 16 (H x W), strides 4 and 8: level 0 is 2 x 4 cells, level 1 is 1 x 2.
  const std::vector<torch::Tensor> features = {torch::zeros({1, 3, 2, 4}), torch::zeros({1, 3, 1, 2})};
  const auto grid = losses::make_anchors(features, {4, 8});
  const auto expected = torch::tensor({2.f, 2.f, 6.f, 2.f, 10.f, 2.f, 14.f, 2.f,   // level 0, row 0
                                       2.f, 6.f, 6.f, 6.f, 10.f, 6.f, 14.f, 6.f,   // level 0, row 1
                                       4.f, 4.f, 12.f, 4.f})                        // level 1
                            .view({10, 2});
  REQUIRE(grid.points.sizes() == torch::IntArrayRef({10, 2}));
  CHECK(torch::equal(grid.points, expected));
  REQUIRE(grid.strides.sizes() == torch::IntArrayRef({10, 1}));
  CHECK(torch::equal(grid.strides.flatten(),
                     torch::tensor({4.f, 4.f, 4.f, 4.f, 4.f, 4.f, 4.f, 4.f, 8.f, 8.f})));
  const auto same = losses::make_anchors({{2, 4}, {1, 2}}, {4, 8}, torch::kCPU);
  CHECK(torch::equal(same.points, grid.points));
}

TEST_CASE("anchor rows: the levels as one [B, A, C] in make_anchors' order, from either layout") {
  // Level values encode (level, image, channel, row, column), so a misplaced value cannot hide.
  const auto level = [](int64_t l, int64_t h, int64_t w) {
    return torch::arange(2 * 3 * h * w, torch::kFloat32).view({2, 3, h, w}) + 1000.0 * static_cast<double>(l);
  };
  const std::vector<torch::Tensor> nchw = {level(0, 2, 4), level(1, 1, 2)};
  const auto rows = losses::anchor_rows(nchw);
  REQUIRE(rows.sizes() == torch::IntArrayRef({2, 10, 3}));
  // Anchor a of image b, channel c: level 0's cell a (row-major) for a < 8, then level 1's.
  CHECK(rows[1][5][2].item<float>() == nchw[0][1][2][1][1].item<float>());
  CHECK(rows[0][9][0].item<float>() == nchw[1][0][0][0][1].item<float>());
  CHECK(torch::equal(rows, torch::cat({nchw[0].flatten(2), nchw[1].flatten(2)}, 2).transpose(1, 2)));

  // Channels-last levels (a CUDA step's): the same values, one contiguous block per level, and
  // the result itself contiguous, which is what the head's gradient comes back as.
  std::vector<torch::Tensor> last;
  for (const auto& l : nchw) last.push_back(l.contiguous(torch::MemoryFormat::ChannelsLast).to(torch::kFloat16));
  const auto from_last = losses::anchor_rows(last);
  CHECK((from_last.scalar_type() == torch::kFloat32));
  CHECK(from_last.is_contiguous());
  CHECK(torch::equal(from_last, rows.to(torch::kFloat16).to(torch::kFloat32)));
  CHECK((losses::anchor_rows(last, torch::kFloat16).scalar_type() == torch::kFloat16));

  const auto message_of = [](const std::vector<torch::Tensor>& levels) -> std::string {
    try {
      losses::anchor_rows(levels);
    } catch (const c10::Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  CHECK(message_of({nchw[0], torch::zeros({2, 4, 1, 2})}).find("every level must be [B, C, H, W] with the first "
                                                                "level's C") != std::string::npos);
  CHECK(message_of({}).find("no output levels") != std::string::npos);
}

namespace {

// One level, stride 8, input 32 x 32: a 4 x 4 grid, anchor a = row * 4 + col at
// (8 col + 4, 8 row + 4). Every anchor predicts the 16 x 16 box centred on itself.
struct Scene {
  torch::Tensor points, strides, pred_boxes;
};

Scene grid_scene(int64_t batch) {
  const auto grid = losses::make_anchors({{4, 4}}, {8}, torch::kCPU);
  const auto pred = torch::cat({grid.points - 8, grid.points + 8}, 1).unsqueeze(0).expand({batch, 16, 4});
  return {grid.points, grid.strides, pred.contiguous()};
}

}  // namespace

TEST_CASE("task-aligned assigner: crafted boxes on a padded batch of 2 (counts 2 and 0)") {
  // Image 0, two gts (xyxy, converted from the padded cx, cy, w, h):
  //   A: class 0, [0, 0, 16, 16]: contains anchors 0 (4,4), 1 (12,4), 4 (4,12), 5 (12,12).
  //      Each of their predicted boxes overlaps A by 12 x 12 = 144: IoU = 144 / (256 + 256 - 144) = 9/23.
  //   B: class 1, [8, 8, 19, 19]: contains anchor 5 (12,12) only; its box [4, 4, 20, 20] overlaps B by
  //      11 x 11 = 121, IoU = 121 / (256 + 121 - 121) = 121/256 = 0.4727 > 9/23 = 0.3913.
  // Scores (probabilities) for class 0: anchor 0 0.9, 1 0.8, 4 0.1, 5 0.6; everything else 0.5.
  // metric = score^0.5 * IoU^6; with plain IoU (for hand checking) and topk 3:
  //   A's candidates rank 0 (0.9) > 1 (0.8) > 5 (0.6) > 4 (0.1): A takes {0, 1, 5}.
  //   B takes its only candidate {5}.
  //   Anchor 5 is claimed by A and B: it keeps B, the higher IoU. Final: A {0, 1}, B {5}.
  // Target scores: metric / max metric of the gt * max IoU of the gt, over its final positives:
  //   anchor 0: 1 * 9/23 = 0.391304; anchor 1: sqrt(0.8 / 0.9) * 9/23 = 0.368932;
  //   anchor 5: 1 * 121/256 = 0.472656 on class 1.
  // Image 1 has no boxes; its padding row holds garbage (a box covering the whole image) that
  // must never be assigned.
  const int64_t classes = 2;
  auto gt = torch::zeros({2, 2, 5});
  gt[0][0] = torch::tensor({0.f, 8.f, 8.f, 16.f, 16.f});
  gt[0][1] = torch::tensor({1.f, 13.5f, 13.5f, 11.f, 11.f});
  gt[1][0] = torch::tensor({0.f, 16.f, 16.f, 32.f, 32.f});  // padding (count 0), deliberately not zero
  const libreyolo::sdk::Targets targets{gt, torch::tensor({2, 0}, torch::kLong), {2, 0}};

  const auto scene = grid_scene(2);
  auto scores = torch::full({2, 16, classes}, 0.5f);
  scores[0][0][0] = 0.9f;
  scores[0][1][0] = 0.8f;
  scores[0][4][0] = 0.1f;
  scores[0][5][0] = 0.6f;

  losses::TaskAlignedAssignerOptions options;
  options.topk = 3;
  options.iou_kind = losses::IoUKind::iou;
  const losses::TaskAlignedAssigner assign(classes, options);
  const auto result = assign(scores, scene.pred_boxes, scene.points, scene.strides, gt.select(2, 0),
                             losses::xywh_to_xyxy(gt.narrow(2, 1, 4)), libreyolo::sdk::valid_mask(targets));

  auto expected_fg = torch::zeros({2, 16}, torch::kBool);
  expected_fg[0][0] = true;
  expected_fg[0][1] = true;
  expected_fg[0][5] = true;
  CHECK(torch::equal(result.foreground, expected_fg));
  CHECK(result.gt_index[0][0].item<int64_t>() == 0);
  CHECK(result.gt_index[0][1].item<int64_t>() == 0);
  CHECK(result.gt_index[0][5].item<int64_t>() == 1);
  CHECK(result.labels[0][5].item<int64_t>() == 1);
  CHECK(torch::allclose(result.boxes[0][5], torch::tensor({8.f, 8.f, 19.f, 19.f})));
  CHECK(torch::allclose(result.boxes[0][1], torch::tensor({0.f, 0.f, 16.f, 16.f})));

  CHECK(value_at(result.scores, {0, 0, 0}) == doctest::Approx(9.0 / 23).epsilon(1e-5));
  CHECK(value_at(result.scores, {0, 1, 0}) == doctest::Approx(std::sqrt(0.8 / 0.9) * 9.0 / 23).epsilon(1e-5));
  CHECK(value_at(result.scores, {0, 5, 1}) == doctest::Approx(121.0 / 256).epsilon(1e-5));
  CHECK(value_at(result.scores, {0, 5, 0}) == 0.0f);
  // Nothing else carries a score; image 1 gets nothing.
  CHECK(result.scores.sum().item<float>() ==
        doctest::Approx(9.0 / 23 + std::sqrt(0.8 / 0.9) * 9.0 / 23 + 121.0 / 256).epsilon(1e-5));
  CHECK(result.scores[1].abs().sum().item<float>() == 0.0f);
  CHECK_FALSE(result.foreground[1].any().item<bool>());

  // With topk 10 (the default) A keeps all four of its anchors except 5, which B still wins.
  const losses::TaskAlignedAssigner wide(classes, [] {
    losses::TaskAlignedAssignerOptions o;
    o.iou_kind = losses::IoUKind::iou;
    return o;
  }());
  const auto wide_result = wide(scores, scene.pred_boxes, scene.points, scene.strides, gt.select(2, 0),
                                losses::xywh_to_xyxy(gt.narrow(2, 1, 4)), libreyolo::sdk::valid_mask(targets));
  CHECK(wide_result.foreground[0].sum().item<int64_t>() == 4);  // 0, 1, 4 (A) and 5 (B)
  CHECK(wide_result.gt_index[0][4].item<int64_t>() == 0);
  CHECK(wide_result.gt_index[0][5].item<int64_t>() == 1);
}

TEST_CASE("task-aligned assigner: a gt containing no anchor point takes its best anchor") {
  // gt [0, 0, 2, 2] lies between anchor points: no candidates. Anchor 0's box [-4, -4, 12, 12]
  // overlaps it (IoU 4/256), the others do not: ensure_one_anchor gives it anchor 0.
  const auto scene = grid_scene(1);
  const auto scores = torch::full({1, 16, 1}, 0.5f);
  const auto gt_boxes = boxes({0, 0, 2, 2}).unsqueeze(0);
  const auto labels = torch::zeros({1, 1});
  const auto valid = torch::ones({1, 1}, torch::kBool);
  losses::TaskAlignedAssignerOptions options;
  options.iou_kind = losses::IoUKind::iou;
  const auto with = losses::TaskAlignedAssigner(1, options)(scores, scene.pred_boxes, scene.points, scene.strides,
                                                           labels, gt_boxes, valid);
  CHECK(with.foreground.sum().item<int64_t>() == 1);
  CHECK(with.foreground[0][0].item<bool>());
  // Its target score is metric / (metric + eps) * IoU: here the metric, sqrt(0.5) (1/64)^6 ~ 1e-11,
  // is far below eps = 1e-9, so the score is ~1% of the IoU (LibreYOLO's normalisation does the same).
  const double metric = std::sqrt(0.5) * std::pow(4.0 / 256, 6);
  CHECK(value_at(with.scores, {0, 0, 0}) == doctest::Approx(metric / (metric + 1e-9) * 4.0 / 256).epsilon(1e-3));
  options.ensure_one_anchor = false;
  const auto without = losses::TaskAlignedAssigner(1, options)(scores, scene.pred_boxes, scene.points,
                                                              scene.strides, labels, gt_boxes, valid);
  CHECK_FALSE(without.foreground.any().item<bool>());
}

TEST_CASE("task-aligned assigner: max_distance limits candidates to what the head can reach") {
  // A 32 x 32 box centred on anchor 5's neighbourhood: with max_distance 1.5 strides (12 px)
  // only anchors whose farthest side is <= 12 px qualify: none of them here (box [0,0,32,32],
  // every anchor is >= 20 px from some side), so nothing is assigned without ensure_one_anchor.
  const auto scene = grid_scene(1);
  const auto scores = torch::full({1, 16, 1}, 0.5f);
  losses::TaskAlignedAssignerOptions options;
  options.max_distance = 1.5;
  options.ensure_one_anchor = false;
  const auto result = losses::TaskAlignedAssigner(1, options)(scores, scene.pred_boxes, scene.points, scene.strides,
                                                             torch::zeros({1, 1}), boxes({0, 0, 32, 32}).unsqueeze(0),
                                                             torch::ones({1, 1}, torch::kBool));
  CHECK_FALSE(result.foreground.any().item<bool>());
  options.max_distance = 0.0;  // disabled: the box's top 10 of its 16 anchors
  const auto open = losses::TaskAlignedAssigner(1, options)(scores, scene.pred_boxes, scene.points, scene.strides,
                                                           torch::zeros({1, 1}), boxes({0, 0, 32, 32}).unsqueeze(0),
                                                           torch::ones({1, 1}, torch::kBool));
  CHECK(open.foreground.sum().item<int64_t>() == 10);
}

TEST_CASE("task-aligned assigner: the batched result equals assigning each image alone") {
  // Random predictions on a 64 x 64 input (levels 8, 16, 32: 84 anchors), 3 images with 3, 0 and
  // 2 real boxes; padding rows hold random garbage. Each image's part of the batched assignment
  // must equal the assignment of that image alone with only its real rows (what a per-image loop
  // would compute), so neither the other images nor the padding leak in.
  torch::manual_seed(7);
  const auto grid = losses::make_anchors({{8, 8}, {4, 4}, {2, 2}}, {8, 16, 32}, torch::kCPU);
  const int64_t batch = 3, anchors = 84, classes = 4, rows = 3;
  const std::vector<int64_t> counts = {3, 0, 2};
  const auto centres = grid.points.unsqueeze(0) + torch::randn({batch, anchors, 2}) * 4;
  const auto sizes = torch::rand({batch, anchors, 2}) * 40 + 4;
  const auto pred_boxes = losses::xywh_to_xyxy(torch::cat({centres, sizes}, 2));
  const auto pred_scores = torch::rand({batch, anchors, classes});
  const auto gt_xywh = torch::cat({torch::rand({batch, rows, 2}) * 48 + 8, torch::rand({batch, rows, 2}) * 40 + 8}, 2);
  const auto gt_boxes = losses::xywh_to_xyxy(gt_xywh);
  const auto gt_labels = torch::randint(0, classes, {batch, rows});
  const libreyolo::sdk::Targets targets{torch::cat({gt_labels.unsqueeze(2), gt_xywh}, 2),
                                        torch::tensor(counts, torch::kLong), counts};

  losses::TaskAlignedAssignerOptions options;
  options.max_distance = 16 - 1.01;
  const losses::TaskAlignedAssigner assign(classes, options);
  const auto all = assign(pred_scores, pred_boxes, grid.points, grid.strides, gt_labels, gt_boxes,
                          libreyolo::sdk::valid_mask(targets));
  CHECK(all.foreground.sum().item<int64_t>() > 0);
  for (int64_t b = 0; b < batch; ++b) {
    CAPTURE(b);
    const int64_t n = counts[static_cast<size_t>(b)];
    if (n == 0) {
      CHECK_FALSE(all.foreground[b].any().item<bool>());
      CHECK(all.scores[b].abs().sum().item<float>() == 0.0f);
      continue;
    }
    const auto alone = assign(pred_scores.narrow(0, b, 1), pred_boxes.narrow(0, b, 1), grid.points, grid.strides,
                              gt_labels.narrow(0, b, 1).narrow(1, 0, n), gt_boxes.narrow(0, b, 1).narrow(1, 0, n),
                              torch::ones({1, n}, torch::kBool));
    CHECK(torch::equal(all.foreground[b], alone.foreground[0]));
    CHECK(torch::equal(all.gt_index[b] * all.foreground[b], alone.gt_index[0] * alone.foreground[0]));
    CHECK(torch::allclose(all.scores[b], alone.scores[0]));
    CHECK(alone.foreground[0].any().item<bool>());
  }
}

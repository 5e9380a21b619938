#include "../torch_doctest.hpp"

#include "libreyolo/core/eval/nms.hpp"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

using namespace libreyolo::core::eval;

TEST_CASE("greedy NMS keeps the best box of an overlapping group and distant boxes") {
  const auto boxes = torch::tensor({0.f, 0.f, 10.f, 10.f,    // A
                                    1.f, 1.f, 11.f, 11.f,    // B: IoU(A,B) = 81/119 = 0.68
                                    20.f, 20.f, 30.f, 30.f,  // C: far away
                                    0.f, 0.f, 10.f, 5.f})    // D: IoU(A,D) = 50/100 = 0.5
                         .view({4, 4});
  const auto scores = torch::tensor({0.9f, 0.95f, 0.5f, 0.8f});
  CHECK((greedy_nms(boxes, scores, 0.6f) == std::vector<int64_t>{1, 3, 2}));  // A suppressed by B
  CHECK((greedy_nms(boxes, scores, 0.7f) == std::vector<int64_t>{1, 0, 3, 2}));
  // IoU(B, D) = 36/(100+50-36) = 0.3158; IoU(A, D) = 0.5 is not > 0.5: D survives.
  CHECK((greedy_nms(boxes, scores, 0.5f) == std::vector<int64_t>{1, 3, 2}));
}

TEST_CASE("postprocess: best class, threshold, per-class NMS, mapping, clipping, max_det") {
  // One image, 4 candidates, 2 classes. Letterbox scale 0.5, pad (0, 0): original = 2x input.
  const auto boxes = torch::tensor({{0.f, 0.f, 10.f, 10.f},
                                    {1.f, 1.f, 11.f, 11.f},
                                    {1.f, 1.f, 11.f, 11.f},
                                    {300.f, 300.f, 400.f, 400.f}}).view({1, 4, 4});
  const auto scores = torch::tensor({{0.9f, 0.1f},     // class 0
                                     {0.2f, 0.85f},    // class 1: overlaps the first, other class
                                     {0.0005f, 0.0f},  // below conf
                                     {0.7f, 0.0f}}).view({1, 4, 2});
  InputToOriginal map;
  map.scale_x = 0.5;
  map.scale_y = 0.5;
  map.original_width = 700;
  map.original_height = 700;
  NmsOptions options;
  const auto out = postprocess_detections(boxes, scores, {map}, options);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].size() == 3);
  CHECK(out[0][0].class_id == 0);
  CHECK(out[0][0].score == doctest::Approx(0.9));
  CHECK(out[0][0].box.x2 == doctest::Approx(20.0));
  CHECK(out[0][1].class_id == 1);  // not suppressed across classes
  CHECK(out[0][2].box.x2 == doctest::Approx(700.0));  // 800 clipped to the original width
  options.max_det = 2;
  CHECK(postprocess_detections(boxes, scores, {map}, options)[0].size() == 2);
}

TEST_CASE("postprocess multi_label: every class above conf is a candidate, capped by score") {
  // Two anchors; the first is above conf in two classes. Best-class keeps 2 detections,
  // multi-label 3: (anchor 0, class 0), (anchor 0, class 1), (anchor 1, class 1).
  const auto boxes = torch::tensor({{0.f, 0.f, 10.f, 10.f}, {50.f, 50.f, 60.f, 60.f}}).view({1, 2, 4});
  const auto scores = torch::tensor({{0.9f, 0.6f}, {0.0f, 0.7f}}).view({1, 2, 2});
  InputToOriginal map;
  map.original_width = 100;
  map.original_height = 100;
  NmsOptions options;
  CHECK(postprocess_detections(boxes, scores, {map}, options)[0].size() == 2);
  options.multi_label = true;
  const auto out = postprocess_detections(boxes, scores, {map}, options)[0];
  REQUIRE(out.size() == 3);
  CHECK(out[0].score == doctest::Approx(0.9));
  CHECK(out[0].class_id == 0);
  CHECK(out[1].score == doctest::Approx(0.7));
  CHECK(out[1].class_id == 1);
  CHECK(out[1].box.x1 == doctest::Approx(50.0));
  CHECK(out[2].score == doctest::Approx(0.6));
  CHECK(out[2].class_id == 1);
  CHECK(out[2].box.x1 == doctest::Approx(0.0));
}

TEST_CASE("postprocess multi_label: the candidate cap applies before NMS, as LibreYOLO's") {
  // A and B overlap (same class); C is elsewhere. Capped to the 2 best candidates, NMS keeps A
  // only; uncapped, A and C.
  const auto boxes = torch::tensor({{0.f, 0.f, 10.f, 10.f}, {0.f, 0.f, 10.f, 11.f}, {50.f, 50.f, 60.f, 60.f}})
                         .view({1, 3, 4});
  const auto scores = torch::tensor({0.9f, 0.8f, 0.5f}).view({1, 3, 1});
  InputToOriginal map;
  map.original_width = 100;
  map.original_height = 100;
  NmsOptions options;
  options.multi_label = true;
  options.max_det = 2;
  CHECK(postprocess_detections(boxes, scores, {map}, options)[0].size() == 2);
  options.max_candidates = 2;
  const auto capped = postprocess_detections(boxes, scores, {map}, options)[0];
  REQUIRE(capped.size() == 1);
  CHECK(capped[0].score == doctest::Approx(0.9));
}

namespace {

// The textbook all-pairs greedy loop: the reference the neighbour-pruned NMS must equal.
std::vector<int64_t> all_pairs_nms(const torch::Tensor& boxes, const torch::Tensor& scores, float iou) {
  const auto n = boxes.size(0);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  const auto* s = scores.data_ptr<float>();
  const auto* b = boxes.data_ptr<float>();
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
  std::vector<char> suppressed(static_cast<size_t>(n), 0);
  std::vector<int64_t> keep;
  for (size_t i = 0; i < order.size(); ++i) {
    const auto a = order[i];
    if (suppressed[static_cast<size_t>(a)]) continue;
    keep.push_back(a);
    const float area_a = (b[4 * a + 2] - b[4 * a]) * (b[4 * a + 3] - b[4 * a + 1]);
    for (size_t j = i + 1; j < order.size(); ++j) {
      const auto c = order[j];
      const float w = std::max(0.f, std::min(b[4 * a + 2], b[4 * c + 2]) - std::max(b[4 * a], b[4 * c]));
      const float h = std::max(0.f, std::min(b[4 * a + 3], b[4 * c + 3]) - std::max(b[4 * a + 1], b[4 * c + 1]));
      const float inter = w * h;
      const float area_c = (b[4 * c + 2] - b[4 * c]) * (b[4 * c + 3] - b[4 * c + 1]);
      if (inter / (area_a + area_c - inter) > iou) suppressed[static_cast<size_t>(c)] = 1;
    }
  }
  return keep;
}

// n boxes: clusters of near-duplicates (what NMS exists for), scattered small ones, a few wide
// ones (they widen the neighbour window), scores with ties.
std::pair<torch::Tensor, torch::Tensor> crowded_boxes(int64_t n, uint64_t seed) {
  torch::manual_seed(seed);
  const auto centre = torch::rand({n, 2}) * 640;
  auto size = torch::rand({n, 2}) * 60 + 2;
  size.narrow(0, 0, n / 50).mul_(8);  // some wide boxes
  const auto jitter = torch::randn({n, 2}) * 3;
  auto boxes = torch::cat({centre - size / 2 + jitter, centre + size / 2 + jitter}, 1);
  boxes.narrow(0, n / 2, n / 2).copy_(boxes.narrow(0, 0, n / 2) + torch::randn({n / 2, 4}));  // near-duplicates
  auto scores = (torch::rand({n}) * 100).round() / 100;  // ties at 2 decimals
  return {boxes.contiguous(), scores.contiguous()};
}

}  // namespace

TEST_CASE("greedy NMS: the neighbour-pruned loop equals the all-pairs loop on crowded random boxes") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const auto [boxes, scores] = crowded_boxes(1500, seed);
    for (const float iou : {0.0f, 0.3f, 0.6f, 0.9f, -0.1f}) {
      CAPTURE(seed);
      CAPTURE(iou);
      CHECK(greedy_nms(boxes, scores, iou) == all_pairs_nms(boxes, scores, iou));
    }
  }
}

TEST_CASE("postprocess: many images on worker threads give what one image at a time gives") {
  const int64_t images = 12, anchors = 900, classes = 3;
  torch::manual_seed(7);
  const auto boxes = torch::cat({torch::rand({images, anchors, 2}) * 300, torch::rand({images, anchors, 2}) * 300 + 310}, 2);
  const auto scores = torch::rand({images, anchors, classes});
  InputToOriginal map;
  map.original_width = 640;
  map.original_height = 640;
  NmsOptions options;
  options.multi_label = true;
  const auto together = postprocess_detections(boxes, scores, std::vector<InputToOriginal>(images, map), options);
  REQUIRE(together.size() == static_cast<size_t>(images));
  for (int64_t i = 0; i < images; ++i) {
    CAPTURE(i);
    const auto alone = postprocess_detections(boxes.narrow(0, i, 1), scores.narrow(0, i, 1), {map}, options)[0];
    REQUIRE(alone.size() == together[static_cast<size_t>(i)].size());
    CHECK(!alone.empty());
    for (size_t k = 0; k < alone.size(); ++k) {
      CHECK(alone[k].score == together[static_cast<size_t>(i)][k].score);
      CHECK(alone[k].class_id == together[static_cast<size_t>(i)][k].class_id);
      CHECK(alone[k].box.x1 == together[static_cast<size_t>(i)][k].box.x1);
    }
  }
}

TEST_CASE("postprocess without suppression: the max_det best (query, class) pairs, mapped per axis, unclipped") {
  // LibreYOLO's DETR post-processing: flat top-k over [Q * C], then the conf filter; no NMS,
  // so two overlapping boxes of one class both stay; boxes are not clipped to the image.
  const auto boxes = torch::tensor({{0.f, 0.f, 10.f, 10.f},
                                    {1.f, 1.f, 11.f, 11.f},
                                    {-20.f, 5.f, 700.f, 40.f}}).view({1, 3, 4});
  const auto scores = torch::tensor({{0.9f, 0.3f},
                                     {0.8f, 0.0f},
                                     {0.0005f, 0.6f}}).view({1, 3, 2});
  InputToOriginal map;  // a stretch: x scaled by 0.5, y by 2
  map.scale_x = 0.5;
  map.scale_y = 2.0;
  map.original_width = 1280;
  map.original_height = 320;
  NmsOptions options;
  options.suppress = false;
  options.max_det = 4;
  const auto out = postprocess_detections(boxes, scores, {map}, options);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].size() == 4);  // 0.9, 0.8, 0.6, 0.3: the fifth best (0.0005) is cut by max_det
  CHECK(out[0][0].score == doctest::Approx(0.9));
  CHECK(out[0][1].score == doctest::Approx(0.8));  // overlaps the first, same class: kept
  CHECK(out[0][1].class_id == 0);
  CHECK(out[0][2].class_id == 1);
  CHECK(out[0][2].box.x1 == doctest::Approx(-40.0));  // not clipped
  CHECK(out[0][2].box.x2 == doctest::Approx(1400.0));
  CHECK(out[0][2].box.y1 == doctest::Approx(2.5));
  CHECK(out[0][2].box.y2 == doctest::Approx(20.0));
  CHECK(out[0][3].score == doctest::Approx(0.3));
  options.conf = 0.5f;  // the conf filter comes after the top-k
  CHECK(postprocess_detections(boxes, scores, {map}, options)[0].size() == 3);
}

#include "../torch_doctest.hpp"

#include "libreyolo/core/eval/nms.hpp"

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
  map.scale = 0.5;
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

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

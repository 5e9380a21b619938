#include <doctest/doctest.h>

#include "libreyolo/core/eval/box_iou.hpp"

using namespace libreyolo::core::eval;

TEST_CASE("box iou: hand-computed overlaps") {
  const Box gt{0, 0, 100, 100};
  CHECK(coco_box_iou(gt, gt, false) == 1.0);
  // 100x78 inside 100x100: 7800 / (10000 + 7800 - 7800) = 0.78
  CHECK(coco_box_iou({0, 0, 100, 78}, gt, false) == doctest::Approx(0.78));
  // shifted right by 10: overlap 90x100 = 9000, union 20000 - 9000 = 11000
  CHECK(coco_box_iou({10, 0, 110, 100}, gt, false) == doctest::Approx(9000.0 / 11000.0));
  // exactly half: 5000 / 10000, bit-exact because every step is exact in binary
  CHECK(coco_box_iou({0, 0, 100, 50}, gt, false) == 0.5);
}

TEST_CASE("box iou: disjoint and edge-touching boxes do not overlap") {
  CHECK(coco_box_iou({200, 200, 300, 300}, {0, 0, 100, 100}, false) == 0.0);
  CHECK(coco_box_iou({100, 0, 200, 100}, {0, 0, 100, 100}, false) == 0.0);  // shared edge
  CHECK(coco_box_iou({0, 100, 100, 200}, {0, 0, 100, 100}, true) == 0.0);
}

TEST_CASE("box iou: crowd overlap is intersection over the detection's area") {
  const Box crowd{0, 0, 100, 100};
  // small box fully inside: 400 / 400 = 1 (plain IoU would be 400 / 10000 = 0.04)
  CHECK(coco_box_iou({10, 10, 30, 30}, crowd, true) == 1.0);
  CHECK(coco_box_iou({10, 10, 30, 30}, crowd, false) == doctest::Approx(0.04));
  // half outside: overlap 50x100 = 5000 over detection area 10000 = 0.5 (plain: 5000/15000)
  CHECK(coco_box_iou({50, 0, 150, 100}, crowd, true) == 0.5);
  CHECK(coco_box_iou({50, 0, 150, 100}, crowd, false) == doctest::Approx(1.0 / 3.0));
}

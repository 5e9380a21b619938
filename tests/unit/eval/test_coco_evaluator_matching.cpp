// Hand-computed COCO AP for crafted matching situations. Notation in the comments, as in
// pycocotools' accumulate(): detections of a class are ranked by score; tp/fp are running
// counts; rc = tp / (number of counted ground truths); pr = tp / (tp + fp); pr is replaced by
// its running maximum from the right; AP at one IoU threshold is the mean over the 101 recall
// thresholds r = 0, .01, ..., 1 of pr at the first rank whose rc >= r (0 if none).

#include <doctest/doctest.h>

#include "eval_test_support.hpp"

using namespace libreyolo::core::eval;
using namespace libreyolo::core::eval::testing;

namespace {

// One 100x100 object (area 10000 > 96^2: "large") and one detection against it.
CocoEvaluation single_box_against(const Box& predicted) {
  return evaluate({{1, {object(0, 0, 100, 100)}, {Detection{predicted, 0.9, 0}}}});
}

}  // namespace

TEST_CASE("perfect detections score 1 on all 12 statistics") {
  // One object per image so maxDets=1 also finds everything; one per area range.
  const CocoEvaluation result = evaluate({
      {1, {object(10, 10, 20, 20)}, {detection(0.9, 10, 10, 20, 20)}},  // 10x10 = 100, small
      {2, {object(0, 0, 50, 50)}, {detection(0.8, 0, 0, 50, 50)}},      // 2500, medium
      {3, {object(0, 0, 200, 200)}, {detection(0.7, 0, 0, 200, 200)}},  // 40000, large
  });
  // Every rank is a TP: rc = 1/3, 2/3, 1 with pr = 1, so pr = 1 at all 101 r, all 10 IoUs.
  for (double value : result.stats.values) CHECK_AP(value, 1.0);
  CHECK_AP(result.per_class[0].ap50_95, 1.0);
  CHECK_AP(result.per_class[0].ap50, 1.0);
  CHECK(result.per_class[0].images == 3);
  CHECK(result.per_class[0].instances == 3);
  CHECK(result.images == 3);
  CHECK(result.instances == 3);
}

TEST_CASE("a shifted box counts at the IoU thresholds it clears, k of 10") {
  SUBCASE("IoU 0.78: clears .50 .55 .60 .65 .70 .75 -> 6 of 10") {
    // 100x78 vs 100x100: 7800 / 10000 = 0.78. At a cleared threshold the single TP gives
    // AP = 1; otherwise the only detection is a FP and AP = 0. Mean: 6/10.
    const CocoEvaluation r = single_box_against({0, 0, 100, 78});
    CHECK_AP(r.stats.ap(), 0.6);
    CHECK_AP(r.stats.ap50(), 1.0);
    CHECK_AP(r.stats.ap75(), 1.0);
    CHECK_AP(r.stats.ap_large(), 0.6);
    CHECK_AP(r.stats.ap_small(), -1.0);   // no small objects at all
    CHECK_AP(r.stats.ap_medium(), -1.0);  // the box (10000 px) is not medium either
    CHECK_AP(r.stats.ar100(), 0.6);       // recall 1 at 6 thresholds, 0 at 4
  }
  SUBCASE("IoU 0.749, just below .75: 5 of 10, AP75 = 0") {
    const CocoEvaluation r = single_box_against({0, 0, 100, 74.9});  // 7490 / 10000
    CHECK_AP(r.stats.ap(), 0.5);
    CHECK_AP(r.stats.ap50(), 1.0);
    CHECK_AP(r.stats.ap75(), 0.0);
  }
  SUBCASE("IoU 0.751, just above .75: 6 of 10, AP75 = 1") {
    const CocoEvaluation r = single_box_against({0, 0, 100, 75.1});  // 7510 / 10000
    CHECK_AP(r.stats.ap(), 0.6);
    CHECK_AP(r.stats.ap75(), 1.0);
  }
  SUBCASE("IoU exactly 0.75 matches at .75 (pycocotools compares iou >= threshold)") {
    const CocoEvaluation r = single_box_against({0, 0, 100, 75});  // 7500 / 10000, exact
    CHECK_AP(r.stats.ap(), 0.6);
    CHECK_AP(r.stats.ap75(), 1.0);
  }
  SUBCASE("IoU exactly 0.5 matches only at .50: 1 of 10") {
    const CocoEvaluation r = single_box_against({0, 0, 100, 50});  // 5000 / 10000
    CHECK_AP(r.stats.ap(), 0.1);
    CHECK_AP(r.stats.ap50(), 1.0);
    CHECK_AP(r.stats.ap75(), 0.0);
  }
  SUBCASE("IoU 0.49 matches nowhere") {
    const CocoEvaluation r = single_box_against({0, 0, 100, 49});  // 4900 / 10000
    CHECK_AP(r.stats.ap(), 0.0);
    CHECK_AP(r.stats.ap50(), 0.0);
    CHECK_AP(r.stats.ar100(), 0.0);
  }
  SUBCASE("IoU 0.94 clears all but .95: 9 of 10; 0.96 clears all") {
    CHECK_AP(single_box_against({0, 0, 100, 94}).stats.ap(), 0.9);
    CHECK_AP(single_box_against({0, 0, 100, 96}).stats.ap(), 1.0);
  }
  SUBCASE("horizontal shift by 10 px: IoU 9000/11000 = 0.818 -> 7 of 10") {
    // overlap 90x100 = 9000, union 10000 + 10000 - 9000 = 11000; clears .50 ... .80
    const CocoEvaluation r = single_box_against({10, 0, 110, 100});
    CHECK_AP(r.stats.ap(), 0.7);
    CHECK_AP(r.per_class[0].ap50_95, 0.7);
    CHECK_AP(r.per_class[0].ap50, 1.0);
  }
}

TEST_CASE("duplicate detections: only the first match is a true positive") {
  SUBCASE("two identical perfect boxes on one object") {
    // ranks: TP, FP -> rc = [1, 1], pr = [1, 1/2]. Every r <= 1 is first reached at rank 0
    // where pr = 1, so the trailing FP costs nothing: AP = 1.
    const CocoEvaluation r =
        evaluate({{1,
                   {object(0, 0, 100, 100)},
                   {detection(0.9, 0, 0, 100, 100), detection(0.8, 0, 0, 100, 100)}}});
    CHECK_AP(r.stats.ap(), 1.0);
    CHECK_AP(r.stats.ar100(), 1.0);
  }
  SUBCASE("a duplicate ranked between two true positives") {
    // Two objects; scores .9 (object A), .8 (A again), .7 (object B).
    // ranks: TP, FP, TP -> tp = [1, 1, 2], fp = [0, 1, 1]
    // rc = [.5, .5, 1], pr = [1, 1/2, 2/3] -> envelope [1, 2/3, 2/3]
    // r = 0 .. .50 (51 values) -> rank 0 -> 1; r = .51 .. 1 (50 values) -> rank 2 -> 2/3
    // AP = (51 * 1 + 50 * 2/3) / 101 = (253/3) / 101 = 253/303
    const CocoEvaluation r =
        evaluate({{1,
                   {object(0, 0, 100, 100), object(200, 200, 300, 300)},
                   {detection(0.9, 0, 0, 100, 100), detection(0.8, 0, 0, 100, 100),
                    detection(0.7, 200, 200, 300, 300)}}});
    const double expected = 253.0 / 303.0;  // 0.834983...
    CHECK_AP(r.stats.ap(), expected);       // same at every IoU: all overlaps are 1 or 0
    CHECK_AP(r.stats.ap50(), expected);
    CHECK_AP(r.stats.ap75(), expected);
    CHECK_AP(r.stats.ar100(), 1.0);
    // The sampled curve itself: r index 50 (= .50) still at rank 0, index 51 at rank 2.
    CHECK_AP(r.curves.precision(0, 50, 0, AreaRange::kAll, 2), 1.0);
    CHECK_AP(r.curves.precision(0, 51, 0, AreaRange::kAll, 2), 2.0 / 3.0);
    CHECK_AP(r.curves.precision(0, 100, 0, AreaRange::kAll, 2), 2.0 / 3.0);
    CHECK_AP(r.curves.recall(0, 0, AreaRange::kAll, 2), 1.0);
  }
  SUBCASE("a poor box scored above the good one") {
    // .9: 100x30 box, IoU 3000/10000 = .3 -> FP everywhere; .8: perfect -> TP
    // rc = [0, 1], pr = [0, 1/2] -> envelope [1/2, 1/2]; every r -> 1/2. AP = 0.5.
    const CocoEvaluation r =
        evaluate({{1,
                   {object(0, 0, 100, 100)},
                   {detection(0.9, 0, 0, 100, 30), detection(0.8, 0, 0, 100, 100)}}});
    CHECK_AP(r.stats.ap(), 0.5);
    CHECK_AP(r.stats.ar100(), 1.0);
  }
}

TEST_CASE("missed objects") {
  SUBCASE("half the objects found: 51 of 101 recall points at precision 1") {
    // rc = [.5], pr = [1]; r = 0 .. .50 (51 values) reach rank 0; r > .5 never: 0.
    // AP = 51/101 at every IoU; recall .5.
    const CocoEvaluation r = evaluate({{1,
                                        {object(0, 0, 100, 100), object(200, 200, 300, 300)},
                                        {detection(0.9, 0, 0, 100, 100)}}});
    CHECK_AP(r.stats.ap(), 51.0 / 101.0);
    CHECK_AP(r.stats.ap50(), 51.0 / 101.0);
    CHECK_AP(r.stats.ar1(), 0.5);
    CHECK_AP(r.stats.ar100(), 0.5);
  }
  SUBCASE("nothing detected: AP and AR are 0, not -1") {
    const CocoEvaluation r = evaluate({{1, {object(0, 0, 100, 100)}, {}}});
    CHECK_AP(r.stats.ap(), 0.0);
    CHECK_AP(r.stats.ar100(), 0.0);
    CHECK_AP(r.stats.ap_large(), 0.0);
    CHECK_AP(r.stats.ap_small(), -1.0);
    CHECK_AP(r.per_class[0].ap50_95, 0.0);
  }
}

TEST_CASE("greedy matching: equal IoUs go to the later ground truth, as in pycocotools") {
  // Objects A [0,0,100,100] and B [50,0,150,100]. Detection d1 (.9) [30,0,120,100] overlaps
  // each by 70x100 = 7000 with union 10000 + 9000 - 7000 = 12000: IoU 7/12 = .5833 for both,
  // bit-identical. pycocotools keeps the *last* gt among equal IoUs, so d1 takes B and
  // d2 (.8) = A exactly takes A.
  // IoU .50, .55 (<= .5833): TP, TP -> AP 1 at both thresholds.
  // IoU .60 .. .95 (8 thresholds): d1 FP, d2 TP on A; 2 objects:
  //   rc = [0, .5], pr = [0, 1/2] -> envelope [1/2, 1/2]; r = 0 .. .50 (51 values) -> 1/2,
  //   r > .5 -> 0. AP = 51 * 0.5 / 101 = 25.5/101.
  // AP = (2 * 1 + 8 * 25.5/101) / 10 = 406/1010. Had d1 taken A, d2's IoU with B would be
  // 5000/15000 and AP50 would drop to 25.5/101.
  const CocoEvaluation r =
      evaluate({{1,
                 {object(0, 0, 100, 100), object(50, 0, 150, 100)},
                 {detection(0.9, 30, 0, 120, 100), detection(0.8, 0, 0, 100, 100)}}});
  CHECK_AP(r.stats.ap50(), 1.0);
  CHECK_AP(r.stats.ap75(), 25.5 / 101.0);
  CHECK_AP(r.stats.ap(), 406.0 / 1010.0);
  // recall: 1 at 2 thresholds, 1/2 at 8 -> (2 + 4) / 10
  CHECK_AP(r.stats.ar100(), 0.6);
}

TEST_CASE("equal scores keep input order inside an image (stable sort)") {
  // Same score .5 for a poor box (IoU .3, FP) and a perfect box (TP).
  SUBCASE("poor box first: FP then TP -> envelope [1/2, 1/2] -> AP 0.5") {
    const CocoEvaluation r =
        evaluate({{1,
                   {object(0, 0, 100, 100)},
                   {detection(0.5, 0, 0, 100, 30), detection(0.5, 0, 0, 100, 100)}}});
    CHECK_AP(r.stats.ap(), 0.5);
  }
  SUBCASE("perfect box first: TP then FP -> AP 1") {
    const CocoEvaluation r =
        evaluate({{1,
                   {object(0, 0, 100, 100)},
                   {detection(0.5, 0, 0, 100, 100), detection(0.5, 0, 0, 100, 30)}}});
    CHECK_AP(r.stats.ap(), 1.0);
  }
}

TEST_CASE("equal scores across images rank by ascending image id, not insertion order") {
  // Image 1: no object, a detection at .5 (FP). Image 2: one object, perfect detection at .5.
  const TestImage fp_image{1, {}, {detection(0.5, 0, 0, 100, 100)}};
  const TestImage tp_image{2, {object(0, 0, 100, 100)}, {detection(0.5, 0, 0, 100, 100)}};
  // Image 1 ranks first: FP, TP -> rc = [0, 1], pr = [0, 1/2] -> AP 0.5, whatever the
  // insertion order.
  CHECK_AP(evaluate({fp_image, tp_image}).stats.ap(), 0.5);
  CHECK_AP(evaluate({tp_image, fp_image}).stats.ap(), 0.5);
  // With the ids swapped the TP ranks first: TP, FP -> AP 1.
  const TestImage fp_late{3, {}, {detection(0.5, 0, 0, 100, 100)}};
  CHECK_AP(evaluate({fp_late, tp_image}).stats.ap(), 1.0);
}

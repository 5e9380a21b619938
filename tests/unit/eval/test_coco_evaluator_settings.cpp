// Hand-computed COCO results for classes, empty inputs, crowd regions, area ranges and
// maxDets. Notation as in test_coco_evaluator_matching.cpp: rc/pr per rank, envelope from the
// right, AP = mean over the 101 recall thresholds.

#include <doctest/doctest.h>

#include "eval_test_support.hpp"

using namespace libreyolo::core::eval;
using namespace libreyolo::core::eval::testing;

TEST_CASE("multi-class: the mean is over classes that have ground truth") {
  // class 0: one object, found -> AP 1, recall 1.
  // class 1: two objects, one found -> AP 51/101 (51 recall points at precision 1), recall .5.
  // class 2: a detection but no object -> -1, left out of every mean.
  // class 3: nothing at all -> -1.
  // The class-2 detection sits exactly on the class-0 object: matching is per class, so it
  // neither helps nor hurts class 0.
  const CocoEvaluation r = evaluate(
      {{1,
        {object(0, 0, 100, 100, 0), object(0, 0, 100, 100, 1), object(200, 200, 300, 300, 1)},
        {detection(0.95, 0, 0, 100, 100, 2), detection(0.9, 0, 0, 100, 100, 0),
         detection(0.8, 0, 0, 100, 100, 1)}}},
      4);
  // AP = (1 + 51/101) / 2 = 76/101
  CHECK_AP(r.stats.ap(), 76.0 / 101.0);
  CHECK_AP(r.stats.ap50(), 76.0 / 101.0);
  CHECK_AP(r.stats.ar100(), 0.75);  // (1 + .5) / 2
  REQUIRE(r.per_class.size() == 4);
  CHECK_AP(r.per_class[0].ap50_95, 1.0);
  CHECK_AP(r.per_class[1].ap50_95, 51.0 / 101.0);
  CHECK_AP(r.per_class[1].ap50, 51.0 / 101.0);
  CHECK_AP(r.per_class[2].ap50_95, -1.0);
  CHECK_AP(r.per_class[3].ap50, -1.0);
  CHECK(r.per_class[1].name == "class1");
  CHECK(r.per_class[1].instances == 2);
  CHECK(r.per_class[1].images == 1);
  CHECK(r.per_class[2].instances == 0);
  CHECK(r.per_class[2].images == 0);
  CHECK(r.instances == 3);
}

TEST_CASE("empty inputs") {
  SUBCASE("no images at all: every statistic is -1") {
    const CocoEvaluation r = evaluate({}, 3);
    for (double value : r.stats.values) CHECK_AP(value, -1.0);
    for (const ClassMetrics& metrics : r.per_class) CHECK_AP(metrics.ap50_95, -1.0);
    CHECK(r.images == 0);
  }
  SUBCASE("detections but no ground truth anywhere: still -1 (nothing to find)") {
    const CocoEvaluation r = evaluate({{1, {}, {detection(0.9, 0, 0, 10, 10)}}, {2, {}, {}}});
    for (double value : r.stats.values) CHECK_AP(value, -1.0);
    CHECK(r.images == 2);
  }
  SUBCASE("detections on an image without objects are false positives of that class") {
    // Image 1: object + perfect detection at .5. Image 2: no object, detection at .9.
    // ranks: FP (.9), TP (.5) -> rc = [0, 1], pr = [0, 1/2] -> envelope [1/2, 1/2] -> AP .5
    const CocoEvaluation r =
        evaluate({{1, {object(0, 0, 100, 100)}, {detection(0.5, 0, 0, 100, 100)}},
                  {2, {}, {detection(0.9, 0, 0, 100, 100)}}});
    CHECK_AP(r.stats.ap(), 0.5);
    CHECK_AP(r.stats.ar100(), 1.0);
    // maxDets=1 is per image: each image keeps its one detection, so AR1 is still 1.
    CHECK_AP(r.stats.ar1(), 1.0);
  }
  SUBCASE("images with objects but no detections give 0, not -1") {
    const CocoEvaluation r = evaluate({{1, {object(0, 0, 10, 10)}, {}}});
    CHECK_AP(r.stats.ap(), 0.0);
    CHECK_AP(r.stats.ap_small(), 0.0);
    CHECK_AP(r.stats.ap_medium(), -1.0);
    CHECK_AP(r.stats.ar_small(), 0.0);
  }
}

TEST_CASE("crowd regions") {
  SUBCASE("detections inside a crowd are ignored, not false positives") {
    // Crowd C [0,0,100,100], object R [200,200,300,300].
    // .9 [10,10,30,30]:   crowd overlap 400 / own area 400 = 1 -> matched to C -> ignored
    // .8 [40,40,60,60]:   also inside C; a crowd can absorb many detections -> ignored
    // .7 = R              -> TP
    // .6 [50,50,150,150]: crowd overlap 2500 / 10000 = .25, misses R -> FP
    // ranks: ign, ign, TP, FP; 1 counted object (the crowd is not one):
    // tp = [0,0,1,1], fp = [0,0,0,1], rc = [0,0,1,1], pr = [0,0,1,1/2] -> envelope
    // [1,1,1,1/2]; r = 0 -> rank 0 -> 1; r > 0 -> rank 2 -> 1. AP = 1 at every IoU.
    // (Counted as plain objects, C would make the first two FPs: AP 1/3.)
    const CocoEvaluation r =
        evaluate({{1,
                   {crowd(0, 0, 100, 100), object(200, 200, 300, 300)},
                   {detection(0.9, 10, 10, 30, 30), detection(0.8, 40, 40, 60, 60),
                    detection(0.7, 200, 200, 300, 300), detection(0.6, 50, 50, 150, 150)}}});
    CHECK_AP(r.stats.ap(), 1.0);
    CHECK_AP(r.stats.ar100(), 1.0);
    CHECK_AP(r.stats.ap_large(), 1.0);   // R is 10000 px; the .6 FP is large too, ranks last
    CHECK_AP(r.stats.ap_small(), -1.0);  // no counted small object
    CHECK_AP(r.stats.ap_medium(), -1.0);
    CHECK(r.per_class[0].instances == 1);  // the crowd is not an instance
  }
  SUBCASE("crowd overlap is measured over the detection's area") {
    // .9 [50,0,150,100]: crowd overlap 5000 / own 10000 = .5 (plain IoU would be 1/3).
    // .8 = R -> TP.
    // IoU .50: .9 matches the crowd -> ignored; TP alone -> AP 1.
    // IoU .55 .. .95 (9): .9 unmatched, its area (10000) is in range -> FP;
    //   FP, TP -> rc = [0, 1], pr = [0, 1/2] -> envelope 1/2 everywhere -> AP .5.
    // AP = (1 + 9 * .5) / 10 = .55
    const CocoEvaluation r =
        evaluate({{1,
                   {crowd(0, 0, 100, 100), object(200, 200, 300, 300)},
                   {detection(0.9, 50, 0, 150, 100), detection(0.8, 200, 200, 300, 300)}}});
    CHECK_AP(r.stats.ap50(), 1.0);
    CHECK_AP(r.stats.ap75(), 0.5);
    CHECK_AP(r.stats.ap(), 0.55);
  }
  SUBCASE("a duplicate of a found object that lies inside a crowd is forgiven") {
    // Crowd C [0,0,300,100] covers object R1 [0,0,100,100]; R2 [400,0,500,100] is apart.
    // .9 = R1 -> TP. Ground truths are visited real-first, and once a real object matches,
    //   the crowd is not considered.
    // .8 = R1 again: R1 is taken; next candidate is C (overlap 1) -> ignored, not FP.
    // .7 [150,0,250,100] inside C -> ignored.
    // .6 = R2 -> TP.
    // ranks: TP, ign, ign, TP; rc = [.5,.5,.5,1], pr = [1,1,1,1] -> AP 1.
    // (Had the duplicate been a FP: pr = [1, 1/2, 1/2, 2/3] and AP < 1.)
    const CocoEvaluation r =
        evaluate({{1,
                   {crowd(0, 0, 300, 100), object(0, 0, 100, 100), object(400, 0, 500, 100)},
                   {detection(0.9, 0, 0, 100, 100), detection(0.8, 0, 0, 100, 100),
                    detection(0.7, 150, 0, 250, 100), detection(0.6, 400, 0, 500, 100)}}});
    CHECK_AP(r.stats.ap(), 1.0);
    CHECK(r.per_class[0].instances == 2);
  }
}

TEST_CASE("area ranges") {
  SUBCASE("a small false positive hurts AP and APs only") {
    // Objects: S [0,0,10,10] (100 px), M [100,100,150,150] (2500), L [300,300,500,500] (40000).
    // Detections: .95 small FP [600,600,610,610] (100 px), then S, M, L exactly (.9, .8, .7).
    // all:    FP, TP, TP, TP; 3 objects: rc = [0, 1/3, 2/3, 1], pr = [0, 1/2, 2/3, 3/4]
    //         -> envelope [3/4]*4 -> AP = .75 at every IoU.
    // small:  M and L are out of range -> ignored, and so are the detections matched to them;
    //         the FP (100 px) is in range: FP, TP, ign, ign; 1 object:
    //         rc = [0,1,1,1], pr = [0,1/2,1/2,1/2] -> APs = .5.
    // medium: the FP is unmatched and 100 px is outside [32^2, 96^2] -> ignored;
    //         ign, ign, TP, ign -> APm = 1. large: likewise APl = 1.
    // AR1 keeps only the top detection of the image (the FP): recall 0.
    const CocoEvaluation r =
        evaluate({{1,
                   {object(0, 0, 10, 10), object(100, 100, 150, 150), object(300, 300, 500, 500)},
                   {detection(0.95, 600, 600, 610, 610), detection(0.9, 0, 0, 10, 10),
                    detection(0.8, 100, 100, 150, 150), detection(0.7, 300, 300, 500, 500)}}});
    CHECK_AP(r.stats.ap(), 0.75);
    CHECK_AP(r.stats.ap50(), 0.75);
    CHECK_AP(r.stats.ap75(), 0.75);
    CHECK_AP(r.stats.ap_small(), 0.5);
    CHECK_AP(r.stats.ap_medium(), 1.0);
    CHECK_AP(r.stats.ap_large(), 1.0);
    CHECK_AP(r.stats.ar1(), 0.0);
    CHECK_AP(r.stats.ar10(), 1.0);
    CHECK_AP(r.stats.ar100(), 1.0);
    CHECK_AP(r.stats.ar_small(), 1.0);
    CHECK_AP(r.stats.ar_medium(), 1.0);
    CHECK_AP(r.stats.ar_large(), 1.0);
  }
  SUBCASE("range bounds are inclusive: 32x32 is small and medium, 96x96 medium and large") {
    const CocoEvaluation r32 =
        evaluate({{1, {object(0, 0, 32, 32)}, {detection(0.9, 0, 0, 32, 32)}}});
    CHECK_AP(r32.stats.ap_small(), 1.0);
    CHECK_AP(r32.stats.ap_medium(), 1.0);
    CHECK_AP(r32.stats.ap_large(), -1.0);
    const CocoEvaluation r96 =
        evaluate({{1, {object(0, 0, 96, 96)}, {detection(0.9, 0, 0, 96, 96)}}});
    CHECK_AP(r96.stats.ap_small(), -1.0);
    CHECK_AP(r96.stats.ap_medium(), 1.0);
    CHECK_AP(r96.stats.ap_large(), 1.0);
  }
  SUBCASE("an annotation's own area decides its range, the detection's box area does not") {
    // A 100x100 box annotated with area 500 (as a thin segmentation would be) is "small".
    // Its perfect detection (box area 10000) is matched, so its own size is never checked.
    GroundTruthObject thin = object(0, 0, 100, 100);
    thin.area = 500.0;
    const CocoEvaluation r = evaluate({{1, {thin}, {detection(0.9, 0, 0, 100, 100)}}});
    CHECK_AP(r.stats.ap_small(), 1.0);
    CHECK_AP(r.stats.ap_large(), -1.0);  // no large object: the matched detection is ignored
    CHECK_AP(r.stats.ap(), 1.0);
  }
}

TEST_CASE("maxDets limits detections per image and class") {
  SUBCASE("12 objects found by 12 detections: AR1 = 1/12, AR10 = 10/12, AR100 = 1") {
    TestImage image{1, {}, {}};
    for (int i = 0; i < 12; ++i) {
      const double x = 20.0 * i;
      image.objects.push_back(object(x, 0, x + 10, 10));
      image.detections.push_back(detection(0.99 - 0.01 * i, x, 0, x + 10, 10));
    }
    const CocoEvaluation r = evaluate({image});
    CHECK_AP(r.stats.ar1(), 1.0 / 12.0);
    CHECK_AP(r.stats.ar10(), 10.0 / 12.0);
    CHECK_AP(r.stats.ar100(), 1.0);
    CHECK_AP(r.stats.ap(), 1.0);
  }
  SUBCASE("the limit applies per class: two classes in one image keep one each for AR1") {
    const CocoEvaluation r =
        evaluate({{1,
                   {object(0, 0, 10, 10, 0), object(50, 50, 60, 60, 1)},
                   {detection(0.9, 0, 0, 10, 10, 0), detection(0.8, 50, 50, 60, 60, 1)}}},
                 2);
    CHECK_AP(r.stats.ar1(), 1.0);
  }
  SUBCASE("beyond 100 detections the lowest-scored are dropped") {
    // 101 objects, 101 perfect detections (given lowest score first). Only the top 100 count:
    // rc = 1/101 .. 100/101, pr = 1. r = 0 .. .99 are reached (100/101 = .990 >= .99),
    // r = 1 is not: AP = 100/101; AR100 = 100/101.
    TestImage image{1, {}, {}};
    for (int i = 0; i < 101; ++i) {
      const double x = 20.0 * (i % 11);
      const double y = 20.0 * (i / 11);
      image.objects.push_back(object(x, y, x + 10, y + 10));
      image.detections.push_back(detection(0.001 * (i + 1), x, y, x + 10, y + 10));
    }
    const CocoEvaluation r = evaluate({image});
    CHECK_AP(r.stats.ap(), 100.0 / 101.0);
    CHECK_AP(r.stats.ar100(), 100.0 / 101.0);
    CHECK_AP(r.stats.ar10(), 10.0 / 101.0);
    CHECK_AP(r.stats.ar1(), 1.0 / 101.0);
  }
}

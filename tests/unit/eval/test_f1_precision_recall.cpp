// Ultralytics' P and R: at the confidence of the best (smoothed) mean F1, from COCO's matches.
#include <doctest/doctest.h>

#include "libreyolo/core/eval/coco_evaluator.hpp"

using namespace libreyolo::core::eval;

TEST_CASE("F1 P and R: a confident false positive above the true one") {
  // One object; a wrong box at 0.9, the right one at 0.5. Below 0.5 both count: P 1/2, R 1,
  // F1 2/3, the best F1 there is (between 0.5 and 0.9 P and R fall together).
  CocoEvaluator evaluator({"thing", "unused"});
  GroundTruthObject object;
  object.box = {0, 0, 100, 100};
  ImageGroundTruth image;
  image.image.id = 1;
  image.objects = {object};
  evaluator.add_image(image, {Detection{{300, 300, 400, 400}, 0.9, 0}, Detection{object.box, 0.5, 0}});
  const auto evaluation = evaluator.evaluate();
  CHECK(evaluation.per_class[0].precision == doctest::Approx(0.5));
  CHECK(evaluation.per_class[0].recall == doctest::Approx(1.0));
  CHECK(evaluation.per_class[1].precision == -1.0);  // no instances: no part in the means
  CHECK(evaluation.precision == doctest::Approx(0.5));
  CHECK(evaluation.recall == doctest::Approx(1.0));
  CHECK(evaluation.f1_confidence <= 0.5);
}

TEST_CASE("F1 P and R: a class that is never detected has P 0 and R 0 and pulls the means down") {
  CocoEvaluator evaluator({"found", "missed"});
  GroundTruthObject found;
  found.box = {0, 0, 100, 100};
  GroundTruthObject missed = found;
  missed.box = {200, 200, 300, 300};
  missed.class_id = 1;
  ImageGroundTruth image;
  image.image.id = 1;
  image.objects = {found, missed};
  evaluator.add_image(image, {Detection{found.box, 0.8, 0}});
  const auto evaluation = evaluator.evaluate();
  CHECK(evaluation.per_class[0].precision == doctest::Approx(1.0));
  CHECK(evaluation.per_class[0].recall == doctest::Approx(1.0));
  CHECK(evaluation.per_class[1].precision == 0.0);
  CHECK(evaluation.per_class[1].recall == 0.0);
  CHECK(evaluation.precision == doctest::Approx(0.5));
  CHECK(evaluation.recall == doctest::Approx(0.5));
}

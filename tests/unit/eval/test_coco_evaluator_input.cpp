// Input the evaluator must refuse with a core::Error (what happened, why, what to do) rather
// than producing garbage or undefined behaviour, and state handling between evaluations.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/eval/coco_evaluator.hpp"

using namespace libreyolo::core::eval;
using libreyolo::core::Error;

namespace {

ImageGroundTruth image_with(std::int64_t id, std::vector<GroundTruthObject> objects = {}) {
  ImageGroundTruth ground_truth;
  ground_truth.image.id = id;
  ground_truth.objects = std::move(objects);
  return ground_truth;
}

GroundTruthObject object(double x1, double y1, double x2, double y2, int class_id = 0) {
  GroundTruthObject o;
  o.box = {x1, y1, x2, y2};
  o.class_id = class_id;
  return o;
}

}  // namespace

TEST_CASE("evaluator refuses an empty class list") {
  CHECK_THROWS_AS(CocoEvaluator(std::vector<std::string>{}), Error);
}

TEST_CASE("evaluator refuses a repeated image id") {
  CocoEvaluator evaluator({"a"});
  evaluator.add_image(image_with(7), {});
  CHECK_THROWS_AS(evaluator.add_image(image_with(7), {}), Error);
  CHECK(evaluator.image_count() == 1);
}

TEST_CASE("evaluator refuses class ids outside the class list") {
  CocoEvaluator evaluator({"a", "b"});
  CHECK_THROWS_AS(evaluator.add_image(image_with(1, {object(0, 0, 1, 1, 2)}), {}), Error);
  CHECK_THROWS_AS(evaluator.add_image(image_with(2, {object(0, 0, 1, 1, -1)}), {}), Error);
  CHECK_THROWS_AS(evaluator.add_image(image_with(3), {Detection{{0, 0, 1, 1}, 0.5, 5}}), Error);
  CHECK(evaluator.image_count() == 0);  // a refused image is not half-added
}

TEST_CASE("evaluator refuses non-finite numbers and inverted boxes") {
  CocoEvaluator evaluator({"a"});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(evaluator.add_image(image_with(1), {Detection{{0, 0, 1, 1}, nan, 0}}), Error);
  CHECK_THROWS_AS(evaluator.add_image(image_with(2), {Detection{{0, 0, inf, 1}, 0.5, 0}}), Error);
  CHECK_THROWS_AS(evaluator.add_image(image_with(3), {Detection{{5, 0, 1, 1}, 0.5, 0}}), Error);
  CHECK_THROWS_AS(evaluator.add_image(image_with(4, {object(0, 5, 1, 1)}), {}), Error);
  GroundTruthObject negative_area = object(0, 0, 1, 1);
  negative_area.area = -3.0;
  CHECK_THROWS_AS(evaluator.add_image(image_with(5, {negative_area}), {}), Error);
  // Zero-size boxes are legal (they simply never overlap anything).
  CHECK_NOTHROW(evaluator.add_image(image_with(6, {object(1, 1, 1, 1)}), {}));
}

TEST_CASE("errors carry the three parts") {
  CocoEvaluator evaluator({"a"});
  try {
    evaluator.add_image(image_with(42, {object(0, 0, 1, 1, 3)}), {});
    FAIL("expected an Error");
  } catch (const Error& error) {
    CHECK(error.what_happened().find("image 42") != std::string::npos);
    CHECK(error.why().find("1 classes") != std::string::npos);
    CHECK_FALSE(error.what_to_do().empty());
  }
}

TEST_CASE("evaluate can run repeatedly and clear starts a new round") {
  CocoEvaluator evaluator({"a"});
  evaluator.add_image(image_with(1, {object(0, 0, 10, 10)}), {Detection{{0, 0, 10, 10}, 0.9, 0}});
  CHECK(evaluator.evaluate().stats.ap() == doctest::Approx(1.0));
  CHECK(evaluator.evaluate().stats.ap() == doctest::Approx(1.0));  // evaluate() is read-only
  evaluator.clear();
  CHECK(evaluator.image_count() == 0);
  CHECK(evaluator.evaluate().stats.ap() == doctest::Approx(-1.0));
  evaluator.add_image(image_with(1, {object(0, 0, 10, 10)}), {});  // id reusable after clear
  CHECK(evaluator.evaluate().stats.ap() == doctest::Approx(0.0));
  CHECK(evaluator.class_names().size() == 1);
}

// Ultralytics' P and R: at the confidence of the best (smoothed) mean F1, from COCO's matches.
#include <doctest/doctest.h>

#include <algorithm>

#include "libreyolo/core/eval/coco_evaluator.hpp"
#include "libreyolo/core/eval/f1_precision_recall.hpp"

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

namespace {

// The sample index whose threshold is nearest `confidence`.
std::size_t sample_near(double confidence) {
  return static_cast<std::size_t>(confidence * (kConfidenceSamples - 1) + 0.5);
}

}  // namespace

TEST_CASE("F1 against confidence: the curve of a true positive at 0.8 and a false one at 0.6") {
  // Ultralytics' ap_per_class: precision and recall per rank, interpolated over the threshold.
  // Below 0.6 both count (P 1/2, R 1); between 0.6 and 0.8 the straight line from P 1/2 to P 1
  // at R 1; above 0.8 nothing counts (P 1, R 0, F1 0).
  CocoEvaluator evaluator({"thing"});
  GroundTruthObject object;
  object.box = {0, 0, 100, 100};
  ImageGroundTruth image;
  image.image.id = 1;
  image.objects = {object};
  evaluator.add_image(image, {Detection{object.box, 0.8, 0}, Detection{{300, 300, 400, 400}, 0.6, 0}});
  const auto evaluation = evaluator.evaluate();
  REQUIRE(evaluation.confidence_curves.size() == 1);
  const auto& curve = evaluation.confidence_curves[0];
  REQUIRE(curve.f1.size() == kConfidenceSamples);
  const auto f1 = [](double p, double r) { return 2 * p * r / (p + r); };
  for (const double x : {0.0, 0.3, 0.59}) {
    CAPTURE(x);
    CHECK(curve.precision[sample_near(x)] == doctest::Approx(0.5));
    CHECK(curve.recall[sample_near(x)] == doctest::Approx(1.0));
    CHECK(curve.f1[sample_near(x)] == doctest::Approx(f1(0.5, 1.0)));
  }
  for (const double x : {0.65, 0.7, 0.75}) {
    CAPTURE(x);
    const double threshold = confidence_sample(sample_near(x));
    const double precision = 0.5 + 0.5 * (threshold - 0.6) / 0.2;
    CHECK(curve.precision[sample_near(x)] == doctest::Approx(precision));
    CHECK(curve.f1[sample_near(x)] == doctest::Approx(f1(precision, 1.0)));
  }
  for (const double x : {0.81, 0.9, 1.0}) {
    CAPTURE(x);
    CHECK(curve.precision[sample_near(x)] == doctest::Approx(1.0));
    CHECK(curve.recall[sample_near(x)] == 0.0);
    CHECK(curve.f1[sample_near(x)] == 0.0);
  }
  // The best F1 is just under 0.8 (P -> 1, R 1), so the smoothed mean peaks below it.
  const auto peak = std::max_element(curve.f1.begin(), curve.f1.end()) - curve.f1.begin();
  CHECK(confidence_sample(static_cast<std::size_t>(peak)) == doctest::Approx(0.8).epsilon(0.002));
}

TEST_CASE("F1 against confidence: a curve per class with instances, and their mean") {
  // Class 0 found at 0.9, class 1 never detected (a zero curve), class 2 has no objects (no
  // curve, though its false positive is there).
  CocoEvaluator evaluator({"found", "missed", "absent"});
  GroundTruthObject found, missed;
  found.box = {0, 0, 100, 100};
  missed.box = {200, 200, 300, 300};
  missed.class_id = 1;
  ImageGroundTruth image;
  image.image.id = 1;
  image.objects = {found, missed};
  evaluator.add_image(image, {Detection{found.box, 0.9, 0}, Detection{{400, 400, 500, 500}, 0.7, 2}});
  const auto curves = evaluator.evaluate().confidence_curves;
  REQUIRE(curves.size() == 2);
  CHECK(curves[0].class_index == 0);
  CHECK(curves[1].class_index == 1);
  for (const double f : curves[1].f1) CHECK(f == 0.0);
  const auto mean = mean_f1(curves);
  CHECK(mean[sample_near(0.5)] == doctest::Approx(0.5));  // (1 + 0) / 2
  CHECK(mean[sample_near(0.95)] == 0.0);
}

TEST_CASE("smoothed: Ultralytics' box filter, its ends padded with the end values") {
  std::vector<double> impulse(kConfidenceSamples, 0.0);
  impulse[500] = 1.0;
  // fraction 0.1: round(1000 x 0.1 x 2) // 2 + 1 = 101 samples, 50 either side.
  const auto wide = smoothed(impulse, 0.1);
  REQUIRE(wide.size() == kConfidenceSamples);
  CHECK(wide[449] == 0.0);
  CHECK(wide[450] == doctest::Approx(1.0 / 101));
  CHECK(wide[550] == doctest::Approx(1.0 / 101));
  CHECK(wide[551] == 0.0);
  // fraction 0.05 (the F1 plot's): 51 samples, 25 either side.
  const auto narrow = smoothed(impulse, 0.05);
  CHECK(narrow[474] == 0.0);
  CHECK(narrow[475] == doctest::Approx(1.0 / 51));
  CHECK(narrow[526] == 0.0);
  // A ramp keeps its ends: the padding repeats them instead of pulling them to zero.
  std::vector<double> ramp(kConfidenceSamples);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<double>(i);
  const auto ends = smoothed(ramp, 0.1);
  CHECK(ends[0] == doctest::Approx((50 * 0.0 + 50 * 51 / 2.0) / 101));  // 51 zeros, then 1..50
  CHECK(ends[500] == doctest::Approx(500.0));
}

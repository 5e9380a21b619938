// The confusion matrix counts each object and each confident detection once, as Ultralytics'
// ConfusionMatrix.process_batch does: rows predicted, columns true, background last.
#include <doctest/doctest.h>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/eval/confusion_matrix.hpp"

using namespace libreyolo::core;
using namespace libreyolo::core::eval;

namespace {

GroundTruthObject object(int class_id, Box box, bool crowd = false) {
  GroundTruthObject o;
  o.class_id = class_id;
  o.box = box;
  o.iscrowd = crowd;
  return o;
}

Detection detection(int class_id, Box box, double score) { return Detection{box, score, class_id}; }

// Sums every cell: each object and each confident detection that matched nothing adds one.
std::size_t total(const ConfusionMatrix& m) {
  std::size_t sum = 0;
  for (std::size_t p = 0; p <= m.class_count(); ++p) {
    for (std::size_t t = 0; t <= m.class_count(); ++t) sum += m.count(p, t);
  }
  return sum;
}

constexpr Box kA{0, 0, 100, 100};
constexpr Box kFar{500, 500, 600, 600};

}  // namespace

TEST_CASE("confusion matrix: a right detection is on the diagonal, a wrong class off it") {
  ConfusionMatrix m(3);
  m.add_image({object(0, kA)}, {detection(0, kA, 0.9)});
  m.add_image({object(1, kA)}, {detection(2, kA, 0.9)});  // matched whatever the class
  CHECK(m.count(0, 0) == 1);
  CHECK(m.count(2, 1) == 1);
  CHECK(m.count(1, 1) == 0);
  CHECK(total(m) == 2);
}

TEST_CASE("confusion matrix: missed objects go to the background row, stray detections to its column") {
  ConfusionMatrix m(2);
  m.add_image({object(0, kA)}, {detection(1, kFar, 0.9)});
  CHECK(m.count(m.background(), 0) == 1);
  CHECK(m.count(1, m.background()) == 1);
  // An image without objects: every confident detection is background; one without detections:
  // every object is missed.
  m.add_image({}, {detection(0, kA, 0.8), detection(0, kFar, 0.7)});
  m.add_image({object(1, kA)}, {});
  CHECK(m.count(0, m.background()) == 2);
  CHECK(m.count(m.background(), 1) == 1);
  CHECK(total(m) == 5);
}

TEST_CASE("confusion matrix: thresholds are strict, as Ultralytics compares") {
  ConfusionMatrix m(1);
  // Score exactly 0.25 does not count at all: the object is missed and nothing is a stray.
  m.add_image({object(0, kA)}, {detection(0, kA, 0.25)});
  CHECK(m.count(m.background(), 0) == 1);
  CHECK(m.count(0, m.background()) == 0);
  // IoU 0.45 exactly (a box inside the object, 45% of its area) does not match.
  m.add_image({object(0, kA)}, {detection(0, Box{0, 0, 45, 100}, 0.9)});
  CHECK(m.count(m.background(), 0) == 2);
  CHECK(m.count(0, m.background()) == 1);
  // IoU 0.5 does.
  m.add_image({object(0, kA)}, {detection(0, Box{0, 0, 50, 100}, 0.9)});
  CHECK(m.count(0, 0) == 1);
  CHECK(total(m) == 4);
}

TEST_CASE("confusion matrix: a duplicate detection of one object is a stray") {
  ConfusionMatrix m(1);
  m.add_image({object(0, kA)}, {detection(0, Box{0, 0, 100, 90}, 0.9), detection(0, kA, 0.6)});
  CHECK(m.count(0, 0) == 1);  // the better overlap (IoU 1) matched
  CHECK(m.count(0, m.background()) == 1);
  CHECK(m.count(m.background(), 0) == 0);
}

TEST_CASE("confusion matrix: Ultralytics' two passes, not an optimal assignment") {
  // d0 overlaps o0 (IoU 0.9) and o1 (0.74); d1 overlaps o0 (0.85) and o1 (0.68). Each detection
  // first keeps its best object: both keep o0. Then o0 keeps d0, and o1 has nothing left, though
  // d0-o1 and d1-o0 would have matched both: one match, one miss, one stray.
  ConfusionMatrix m(3);
  const Box o0{0, 0, 100, 100}, o1{10, 0, 110, 100};
  const Box d0{0, 0, 100, 90}, d1{0, 0, 85, 100};
  m.add_image({object(0, o0), object(1, o1)}, {detection(2, d0, 0.9), detection(2, d1, 0.8)});
  CHECK(m.count(2, 0) == 1);
  CHECK(m.count(m.background(), 1) == 1);
  CHECK(m.count(2, m.background()) == 1);
  CHECK(total(m) == 3);
}

TEST_CASE("confusion matrix: crowd regions are neither objects nor excuses") {
  ConfusionMatrix m(1);
  m.add_image({object(0, kA, true)}, {detection(0, kA, 0.9)});
  CHECK(m.count(m.background(), 0) == 0);
  CHECK(m.count(0, m.background()) == 1);
}

TEST_CASE("confusion matrix: columns normalise by the true class's count; only classes that occur are shown") {
  ConfusionMatrix m(4);
  m.add_image({object(0, kA), object(0, kFar)}, {detection(0, kA, 0.9)});
  m.add_image({object(0, kA)}, {detection(2, kA, 0.9)});
  m.add_image({}, {detection(3, kA, 0.9)});
  CHECK(m.normalised(0, 0) == doctest::Approx(1.0 / 3));
  CHECK(m.normalised(2, 0) == doctest::Approx(1.0 / 3));
  CHECK(m.normalised(m.background(), 0) == doctest::Approx(1.0 / 3));
  CHECK(m.normalised(3, m.background()) == doctest::Approx(1.0));
  CHECK(m.normalised(1, 1) == 0.0);  // an empty column
  // Class 1 never occurs: no row, no column. Class 2 only predicted, class 3 only a stray.
  CHECK(m.classes_present() == std::vector<std::size_t>{0, 2, 3});
}

TEST_CASE("confusion matrix: counted over an evaluator's images; bad classes are refused") {
  CocoEvaluator evaluator({"a", "b"});
  ImageGroundTruth image;
  image.image.id = 7;
  image.objects = {object(1, kA)};
  evaluator.add_image(image, {detection(1, kA, 0.9), detection(0, kFar, 0.3)});
  const auto m = confusion_matrix(evaluator);
  CHECK(m.count(1, 1) == 1);
  CHECK(m.count(0, m.background()) == 1);
  CHECK(total(m) == 2);
  ConfusionMatrix small(2);
  CHECK_THROWS_WITH_AS(small.add_image({object(2, kA)}, {}), doctest::Contains("the matrix has 2 classes"), Error);
  CHECK_THROWS_AS(ConfusionMatrix(0), Error);
}

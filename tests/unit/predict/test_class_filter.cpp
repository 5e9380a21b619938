// predict classes=: ids, lists, brackets and names, and the errors for what is not a class.
#include <doctest/doctest.h>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/predict/class_filter.hpp"

using namespace libreyolo::core;
using predict::parse_class_filter;

namespace {
const std::vector<std::string> kNames = {"person", "bicycle", "car", "traffic light"};
}

TEST_CASE("classes= takes ids, lists in brackets and names") {
  CHECK(parse_class_filter("", kNames).empty());
  CHECK(parse_class_filter("2", kNames) == std::vector<int>{2});
  CHECK(parse_class_filter("2,0", kNames) == std::vector<int>{0, 2});
  CHECK(parse_class_filter("[0, 2, 2]", kNames) == std::vector<int>{0, 2});
  CHECK(parse_class_filter("(1)", kNames) == std::vector<int>{1});
  CHECK(parse_class_filter("person, traffic light", kNames) == std::vector<int>{0, 3});
}

TEST_CASE("classes= out of range, unknown names and empty entries are errors that say what to do") {
  CHECK_THROWS_WITH_AS(parse_class_filter("0,4", kNames),
                       doctest::Contains("classes=0,4 names class 4, which this model does not have: the model knows 4 "
                                         "classes, ids 0 to 3"),
                       Error);
  CHECK_THROWS_WITH_AS(parse_class_filter("-1", kNames), doctest::Contains("names class -1"), Error);
  CHECK_THROWS_WITH_AS(parse_class_filter("dog", kNames),
                       doctest::Contains("neither a class id nor one of the model's class names"), Error);
  CHECK_THROWS_WITH_AS(parse_class_filter("0,,1", kNames), doctest::Contains("has an empty entry"), Error);
  CHECK_THROWS_AS(parse_class_filter("99999999999999999999", kNames), Error);
}

TEST_CASE("keep_classes drops the other classes and keeps the order") {
  std::vector<eval::Detection> detections = {{{0, 0, 1, 1}, 0.9, 2}, {{0, 0, 1, 1}, 0.8, 1}, {{0, 0, 1, 1}, 0.7, 2}};
  auto all = detections;
  predict::keep_classes(all, {});
  CHECK(all.size() == 3);
  predict::keep_classes(detections, {2});
  REQUIRE(detections.size() == 2);
  CHECK(detections[0].score == doctest::Approx(0.9));
  CHECK(detections[1].score == doctest::Approx(0.7));
}

#pragma once
// Shorthands for the COCO evaluator tests: build objects and detections in one line, run a
// whole evaluation from a list of images, and compare AP values to 1e-6.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "libreyolo/core/eval/coco_evaluator.hpp"

#define CHECK_AP(actual, expected) CHECK((actual) == doctest::Approx(expected).epsilon(1e-6))

namespace libreyolo::core::eval::testing {

inline GroundTruthObject object(double x1, double y1, double x2, double y2, int class_id = 0) {
  GroundTruthObject o;
  o.box = {x1, y1, x2, y2};
  o.class_id = class_id;
  return o;
}

inline GroundTruthObject crowd(double x1, double y1, double x2, double y2, int class_id = 0) {
  GroundTruthObject o = object(x1, y1, x2, y2, class_id);
  o.iscrowd = true;
  return o;
}

inline Detection detection(double score, double x1, double y1, double x2, double y2,
                           int class_id = 0) {
  return Detection{{x1, y1, x2, y2}, score, class_id};
}

struct TestImage {
  std::int64_t id;
  std::vector<GroundTruthObject> objects;
  std::vector<Detection> detections;
};

// Classes are named class0, class1, ...
inline CocoEvaluation evaluate(const std::vector<TestImage>& images, std::size_t class_count = 1) {
  std::vector<std::string> names;
  for (std::size_t k = 0; k < class_count; ++k) names.push_back("class" + std::to_string(k));
  CocoEvaluator evaluator(names);
  for (const TestImage& image : images) {
    ImageGroundTruth ground_truth;
    ground_truth.image.id = image.id;
    ground_truth.objects = image.objects;
    evaluator.add_image(ground_truth, image.detections);
  }
  return evaluator.evaluate();
}

}  // namespace libreyolo::core::eval::testing

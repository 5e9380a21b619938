#include "libreyolo/core/eval/input_validation.hpp"

#include <cmath>
#include <string>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::eval {
namespace {

bool finite(const Box& box) {
  return std::isfinite(box.x1) && std::isfinite(box.y1) && std::isfinite(box.x2) &&
         std::isfinite(box.y2);
}

std::string describe(const Box& box) {
  return "[" + std::to_string(box.x1) + ", " + std::to_string(box.y1) + ", " +
         std::to_string(box.x2) + ", " + std::to_string(box.y2) + "]";
}

void check_class(int class_id, std::size_t class_count, const std::string& what) {
  if (class_id < 0 || static_cast<std::size_t>(class_id) >= class_count) {
    throw Error(what + " has class id " + std::to_string(class_id),
                "the evaluator knows " + std::to_string(class_count) + " classes (ids 0 to " +
                    std::to_string(static_cast<long long>(class_count) - 1) + ")",
                "Check that the dataset's class names and the model's class count agree");
  }
}

void check_box(const Box& box, const std::string& what, const std::string& fix) {
  if (!finite(box)) {
    throw Error(what + " has a non-finite box " + describe(box),
                "a NaN or infinite coordinate cannot be matched or written to JSON", fix);
  }
  if (box.x2 < box.x1 || box.y2 < box.y1) {
    throw Error(what + " has an inverted box " + describe(box),
                "boxes must be x1 <= x2 and y1 <= y2 (xyxy, pixels)", fix);
  }
}

}  // namespace

void validate_ground_truth(const ImageGroundTruth& ground_truth, std::size_t class_count) {
  const std::string image = "image " + std::to_string(ground_truth.image.id);
  for (std::size_t i = 0; i < ground_truth.objects.size(); ++i) {
    const GroundTruthObject& object = ground_truth.objects[i];
    const std::string what = "Ground-truth object " + std::to_string(i) + " of " + image;
    check_class(object.class_id, class_count, what);
    check_box(object.box, what, "Fix or drop that label in the dataset");
    if (object.area && !(std::isfinite(*object.area) && *object.area >= 0.0)) {
      throw Error(what + " has area " + std::to_string(*object.area),
                  "an object's area must be a finite number >= 0",
                  "Fix the annotation's area or leave it unset to use the box area");
    }
  }
}

void validate_detections(std::int64_t image_id, const std::vector<Detection>& detections,
                         std::size_t class_count) {
  const std::string image = "image " + std::to_string(image_id);
  const std::string fix =
      "The model produced invalid output; check the postprocessing (and for a diverged "
      "training run, the loss)";
  for (std::size_t i = 0; i < detections.size(); ++i) {
    const Detection& detection = detections[i];
    const std::string what = "Detection " + std::to_string(i) + " of " + image;
    check_class(detection.class_id, class_count, what);
    check_box(detection.box, what, fix);
    if (!std::isfinite(detection.score)) {
      throw Error(what + " has a non-finite score",
                  "detections are ranked by score and NaN has no rank", fix);
    }
  }
}

}  // namespace libreyolo::core::eval

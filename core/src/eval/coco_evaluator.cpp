#include "libreyolo/core/eval/coco_evaluator.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/eval/f1_precision_recall.hpp"
#include "libreyolo/core/eval/image_matching.hpp"
#include "libreyolo/core/eval/input_validation.hpp"

namespace libreyolo::core::eval {
namespace {

// Pointers to one image's items, grouped by class; stable so each class keeps input order.
template <typename Item>
std::vector<const Item*> group_by_class(const std::vector<Item>& items) {
  std::vector<const Item*> grouped;
  grouped.reserve(items.size());
  for (const Item& item : items) grouped.push_back(&item);
  std::stable_sort(grouped.begin(), grouped.end(),
                   [](const Item* a, const Item* b) { return a->class_id < b->class_id; });
  return grouped;
}

// Takes the run of `grouped[cursor..]` whose class is `class_id`, advancing the cursor.
template <typename Item>
void take_class(const std::vector<const Item*>& grouped, std::size_t& cursor, int class_id,
                std::vector<const Item*>& out) {
  out.clear();
  while (cursor < grouped.size() && grouped[cursor]->class_id == class_id) {
    out.push_back(grouped[cursor++]);
  }
}

}  // namespace

CocoEvaluator::CocoEvaluator(std::vector<std::string> class_names)
    : class_names_(std::move(class_names)) {
  if (class_names_.empty()) {
    throw Error("Cannot create a COCO evaluator", "the class list is empty",
                "Give the dataset's class names (e.g. the 'names' of the dataset YAML)");
  }
}

void CocoEvaluator::add_image(ImageGroundTruth ground_truth, std::vector<Detection> detections) {
  const std::int64_t id = ground_truth.image.id;
  if (image_ids_.count(id) != 0) {
    throw Error("Image id " + std::to_string(id) + " was added to the evaluator twice",
                "COCO scoring identifies images by id, so ids must be unique",
                "Give every image of the validation set its own id");
  }
  validate_ground_truth(ground_truth, class_names_.size());
  validate_detections(id, detections, class_names_.size());
  image_ids_.insert(id);
  detections_.push_back(ImageDetections{id, std::move(detections)});
  ground_truth_.push_back(std::move(ground_truth));
}

void CocoEvaluator::clear() {
  ground_truth_.clear();
  detections_.clear();
  image_ids_.clear();
}

CocoEvaluation CocoEvaluator::evaluate() const {
  const std::size_t class_count = class_names_.size();
  CocoEvaluation evaluation;
  evaluation.images = ground_truth_.size();
  evaluation.per_class.resize(class_count);
  for (std::size_t k = 0; k < class_count; ++k) {
    evaluation.per_class[k].class_id = static_cast<int>(k);
    evaluation.per_class[k].name = class_names_[k];
  }

  // pycocotools walks images in ascending id order; that order decides cross-image score ties.
  std::vector<std::size_t> image_order(ground_truth_.size());
  std::iota(image_order.begin(), image_order.end(), std::size_t{0});
  std::sort(image_order.begin(), image_order.end(), [this](std::size_t a, std::size_t b) {
    return ground_truth_[a].image.id < ground_truth_[b].image.id;
  });

  std::vector<std::vector<ImageClassMatch>> per_class(class_count);
  std::vector<const GroundTruthObject*> class_objects;
  std::vector<const Detection*> class_detections;
  for (std::size_t image : image_order) {
    const auto objects = group_by_class(ground_truth_[image].objects);
    const auto detections = group_by_class(detections_[image].detections);
    std::size_t object_cursor = 0;
    std::size_t detection_cursor = 0;
    // Visit only the classes present in this image: cost scales with objects, not classes.
    while (object_cursor < objects.size() || detection_cursor < detections.size()) {
      int class_id = object_cursor < objects.size() ? objects[object_cursor]->class_id
                                                    : detections[detection_cursor]->class_id;
      if (detection_cursor < detections.size()) {
        class_id = std::min(class_id, detections[detection_cursor]->class_id);
      }
      take_class(objects, object_cursor, class_id, class_objects);
      take_class(detections, detection_cursor, class_id, class_detections);

      const auto k = static_cast<std::size_t>(class_id);
      const auto instances = static_cast<std::size_t>(
          std::count_if(class_objects.begin(), class_objects.end(),
                        [](const GroundTruthObject* object) { return !object->iscrowd; }));
      evaluation.per_class[k].instances += instances;
      if (instances > 0) ++evaluation.per_class[k].images;
      evaluation.instances += instances;

      per_class[k].push_back(match_image_class(class_detections, class_objects));
    }
  }

  evaluation.curves = accumulate_precision_recall(per_class);
  evaluation.stats = summarize_coco_stats(evaluation.curves);
  evaluation.confidence_curves = confidence_curves(per_class);
  const auto f1 = f1_precision_recall(evaluation.confidence_curves, class_count);
  evaluation.precision = f1.mean_precision;
  evaluation.recall = f1.mean_recall;
  evaluation.f1_confidence = f1.confidence;
  for (std::size_t k = 0; k < class_count; ++k) {
    evaluation.per_class[k].ap50_95 = class_ap50_95(evaluation.curves, k);
    evaluation.per_class[k].ap50 = class_ap50(evaluation.curves, k);
    evaluation.per_class[k].precision = f1.precision[k];
    evaluation.per_class[k].recall = f1.recall[k];
  }
  return evaluation;
}

}  // namespace libreyolo::core::eval

#include "libreyolo/core/eval/confusion_matrix.hpp"

#include <algorithm>
#include <string>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/eval/box_iou.hpp"

namespace libreyolo::core::eval {
namespace {

struct Pair {
  std::size_t object = 0, detection = 0;
  double iou = 0;
};

// Ultralytics' two passes over the pairs above the IoU threshold, best IoU first: each
// detection keeps its best object, then each object its best remaining detection. Not an
// optimal assignment (a detection dropped in the first pass is not offered to its second-best
// object), but the same cells Ultralytics fills.
std::vector<Pair> match_pairs(std::vector<Pair> pairs, std::size_t objects, std::size_t detections) {
  const auto keep_best_per = [&](std::size_t Pair::*member, std::size_t count) {
    std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.iou > b.iou; });
    std::vector<bool> taken(count, false);
    std::vector<Pair> kept;
    for (const auto& p : pairs) {
      if (!taken[p.*member]) taken[p.*member] = true, kept.push_back(p);
    }
    pairs = std::move(kept);
  };
  keep_best_per(&Pair::detection, detections);
  keep_best_per(&Pair::object, objects);
  return pairs;
}

void check_class(int class_id, std::size_t class_count, const char* what) {
  if (class_id < 0 || static_cast<std::size_t>(class_id) >= class_count) {
    throw Error(std::string("cannot count a confusion matrix: ") + what + " of class " + std::to_string(class_id),
                "the matrix has " + std::to_string(class_count) + " classes (0 to " + std::to_string(class_count - 1) + ")",
                "give class ids of the dataset's names");
  }
}

}  // namespace

ConfusionMatrix::ConfusionMatrix(std::size_t class_count, ConfusionThresholds thresholds)
    : class_count_(class_count), thresholds_(thresholds), counts_((class_count + 1) * (class_count + 1), 0) {
  if (class_count == 0) {
    throw Error("cannot make a confusion matrix of no classes", "the class list is empty", "give the dataset's names");
  }
}

void ConfusionMatrix::add_image(const std::vector<GroundTruthObject>& objects, const std::vector<Detection>& detections) {
  std::vector<const GroundTruthObject*> truth;
  for (const auto& o : objects) {
    check_class(o.class_id, class_count_, "an object");
    if (!o.iscrowd) truth.push_back(&o);
  }
  std::vector<const Detection*> confident;
  for (const auto& d : detections) {
    check_class(d.class_id, class_count_, "a detection");
    if (d.score > thresholds_.confidence) confident.push_back(&d);
  }
  std::vector<Pair> pairs;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    for (std::size_t j = 0; j < confident.size(); ++j) {
      const double iou = coco_box_iou(confident[j]->box, truth[i]->box, false);
      if (iou > thresholds_.iou) pairs.push_back({i, j, iou});
    }
  }
  const auto matches = match_pairs(std::move(pairs), truth.size(), confident.size());
  std::vector<bool> detection_matched(confident.size(), false);
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const auto m = std::find_if(matches.begin(), matches.end(), [&](const Pair& p) { return p.object == i; });
    const auto true_class = static_cast<std::size_t>(truth[i]->class_id);
    if (m == matches.end()) {
      ++cell(background(), true_class);  // missed: nothing confident enough overlaps it
      continue;
    }
    detection_matched[m->detection] = true;
    ++cell(static_cast<std::size_t>(confident[m->detection]->class_id), true_class);
  }
  for (std::size_t j = 0; j < confident.size(); ++j) {
    if (!detection_matched[j]) ++cell(static_cast<std::size_t>(confident[j]->class_id), background());
  }
}

std::size_t ConfusionMatrix::count(std::size_t predicted, std::size_t truth) const {
  return counts_.at(predicted * (class_count_ + 1) + truth);
}

double ConfusionMatrix::normalised(std::size_t predicted, std::size_t truth) const {
  std::size_t column = 0;
  for (std::size_t row = 0; row <= class_count_; ++row) column += count(row, truth);
  return column > 0 ? static_cast<double>(count(predicted, truth)) / static_cast<double>(column) : 0.0;
}

std::vector<std::size_t> ConfusionMatrix::classes_present() const {
  std::vector<std::size_t> present;
  for (std::size_t k = 0; k < class_count_; ++k) {
    bool any = false;
    for (std::size_t other = 0; other <= class_count_ && !any; ++other) any = count(k, other) > 0 || count(other, k) > 0;
    if (any) present.push_back(k);
  }
  return present;
}

ConfusionMatrix confusion_matrix(const CocoEvaluator& evaluator, ConfusionThresholds thresholds) {
  ConfusionMatrix matrix(evaluator.class_names().size(), thresholds);
  const auto& truth = evaluator.ground_truth();
  const auto& detections = evaluator.detections();
  for (std::size_t i = 0; i < truth.size() && i < detections.size(); ++i) {
    matrix.add_image(truth[i].objects, detections[i].detections);
  }
  return matrix;
}

}  // namespace libreyolo::core::eval

#include "libreyolo/core/eval/coco_summary.hpp"

namespace libreyolo::core::eval {
namespace {

// Mean of the defined (> -1) entries, or -1 when none is defined, like pycocotools'
// np.mean(s[s > -1]).
class DefinedMean {
 public:
  void add(double value) {
    if (value > -1.0) {
      sum_ += value;
      ++count_;
    }
  }
  double value() const { return count_ == 0 ? -1.0 : sum_ / static_cast<double>(count_); }

 private:
  double sum_ = 0.0;
  std::size_t count_ = 0;
};

double average_precision(const PrecisionRecallTable& table, std::size_t first_iou,
                         std::size_t last_iou, std::size_t first_class, std::size_t last_class,
                         AreaRange area, std::size_t max_detections_index) {
  DefinedMean mean;
  for (std::size_t t = first_iou; t <= last_iou; ++t) {
    for (std::size_t r = 0; r < kRecallThresholdCount; ++r) {
      for (std::size_t k = first_class; k <= last_class; ++k) {
        mean.add(table.precision(t, r, k, area, max_detections_index));
      }
    }
  }
  return mean.value();
}

double average_recall(const PrecisionRecallTable& table, std::size_t first_iou,
                      std::size_t last_iou, AreaRange area, std::size_t max_detections_index) {
  DefinedMean mean;
  for (std::size_t t = first_iou; t <= last_iou; ++t) {
    for (std::size_t k = 0; k < table.class_count(); ++k) {
      mean.add(table.recall(t, k, area, max_detections_index));
    }
  }
  return mean.value();
}

}  // namespace

const std::array<CocoStatDefinition, kCocoStatCount>& coco_stat_definitions() {
  constexpr std::size_t kAll = 0;
  constexpr std::size_t m1 = 0;
  constexpr std::size_t m10 = 1;
  constexpr std::size_t m100 = 2;
  static const std::array<CocoStatDefinition, kCocoStatCount> definitions = {{
      {true, true, kAll, AreaRange::kAll, m100},
      {true, false, kIou50Index, AreaRange::kAll, m100},
      {true, false, kIou75Index, AreaRange::kAll, m100},
      {true, true, kAll, AreaRange::kSmall, m100},
      {true, true, kAll, AreaRange::kMedium, m100},
      {true, true, kAll, AreaRange::kLarge, m100},
      {false, true, kAll, AreaRange::kAll, m1},
      {false, true, kAll, AreaRange::kAll, m10},
      {false, true, kAll, AreaRange::kAll, m100},
      {false, true, kAll, AreaRange::kSmall, m100},
      {false, true, kAll, AreaRange::kMedium, m100},
      {false, true, kAll, AreaRange::kLarge, m100},
  }};
  return definitions;
}

CocoStats summarize_coco_stats(const PrecisionRecallTable& table) {
  CocoStats stats;
  if (table.class_count() == 0) {
    stats.values.fill(-1.0);
    return stats;
  }
  const auto& definitions = coco_stat_definitions();
  for (std::size_t i = 0; i < kCocoStatCount; ++i) {
    const CocoStatDefinition& definition = definitions[i];
    const std::size_t first_iou = definition.all_iou_thresholds ? 0 : definition.iou_index;
    const std::size_t last_iou =
        definition.all_iou_thresholds ? kIouThresholdCount - 1 : definition.iou_index;
    stats.values[i] =
        definition.is_average_precision
            ? average_precision(table, first_iou, last_iou, 0, table.class_count() - 1,
                                definition.area, definition.max_detections_index)
            : average_recall(table, first_iou, last_iou, definition.area,
                             definition.max_detections_index);
  }
  return stats;
}

double class_ap50_95(const PrecisionRecallTable& table, std::size_t class_index) {
  return average_precision(table, 0, kIouThresholdCount - 1, class_index, class_index,
                           AreaRange::kAll, kMaxDetectionsLargestIndex);
}

double class_ap50(const PrecisionRecallTable& table, std::size_t class_index) {
  return average_precision(table, kIou50Index, kIou50Index, class_index, class_index,
                           AreaRange::kAll, kMaxDetectionsLargestIndex);
}

}  // namespace libreyolo::core::eval

#pragma once
// Step three of COCO scoring (pycocotools' summarize): reduce the precision/recall table to
// the 12 standard numbers and to per-class AP. Every mean skips the -1 entries, i.e. classes
// (or area ranges) with nothing to find.

#include <array>
#include <cstddef>

#include "libreyolo/core/eval/coco_params.hpp"
#include "libreyolo/core/eval/precision_recall.hpp"

namespace libreyolo::core::eval {

inline constexpr std::size_t kCocoStatCount = 12;

// What one of the 12 numbers averages over; the report formatter prints the same definitions.
struct CocoStatDefinition {
  bool is_average_precision;  // false: average recall
  bool all_iou_thresholds;    // false: only `iou_index`
  std::size_t iou_index;
  AreaRange area;
  std::size_t max_detections_index;
};

// In pycocotools' order: AP, AP50, AP75, APs, APm, APl, AR1, AR10, AR100, ARs, ARm, ARl.
const std::array<CocoStatDefinition, kCocoStatCount>& coco_stat_definitions();

struct CocoStats {
  // -1 where there was nothing to average (no ground truth in that setting).
  std::array<double, kCocoStatCount> values{};

  double ap() const { return values[0]; }
  double ap50() const { return values[1]; }
  double ap75() const { return values[2]; }
  double ap_small() const { return values[3]; }
  double ap_medium() const { return values[4]; }
  double ap_large() const { return values[5]; }
  double ar1() const { return values[6]; }
  double ar10() const { return values[7]; }
  double ar100() const { return values[8]; }
  double ar_small() const { return values[9]; }
  double ar_medium() const { return values[10]; }
  double ar_large() const { return values[11]; }
};

CocoStats summarize_coco_stats(const PrecisionRecallTable& table);

// One class's AP over all areas with maxDets 100: averaged over the 10 IoU thresholds, or at
// IoU .50 only. -1 when the class has no ground truth.
double class_ap50_95(const PrecisionRecallTable& table, std::size_t class_index);
double class_ap50(const PrecisionRecallTable& table, std::size_t class_index);

}  // namespace libreyolo::core::eval

#pragma once
// The fixed evaluation grid of COCO bbox scoring (pycocotools' Params.setDetParams): IoU and
// recall thresholds, maxDets and area ranges. They are not configurable on purpose: the point
// of this evaluator is to print numbers comparable with every published COCO mAP.

#include <array>
#include <cstddef>

namespace libreyolo::core::eval {

inline constexpr std::size_t kIouThresholdCount = 10;      // .50:.05:.95
inline constexpr std::size_t kRecallThresholdCount = 101;  // 0:.01:1
inline constexpr std::size_t kAreaRangeCount = 4;
inline constexpr std::size_t kMaxDetectionsCount = 3;

// Indices into the threshold tables that the summary statistics single out.
inline constexpr std::size_t kIou50Index = 0;
inline constexpr std::size_t kIou75Index = 5;

// Per image *and category*, as pycocotools applies it: only the top-scored detections of one
// class in one image are evaluated.
inline constexpr std::array<int, kMaxDetectionsCount> kMaxDetections = {1, 10, 100};
inline constexpr std::size_t kMaxDetectionsLargestIndex = kMaxDetectionsCount - 1;

enum class AreaRange : std::size_t { kAll = 0, kSmall = 1, kMedium = 2, kLarge = 3 };

struct AreaBounds {
  double min_area;  // inclusive
  double max_area;  // inclusive
  const char* label;
};

// all [0, 1e5^2], small [0, 32^2], medium [32^2, 96^2], large [96^2, 1e5^2]; both ends are
// inclusive in pycocotools, so a 32x32 object is both small and medium.
const std::array<AreaBounds, kAreaRangeCount>& area_ranges();

// The exact doubles numpy's linspace produces (pycocotools builds both tables with it; a
// threshold one ulp off would flip matches whose IoU lands exactly on it, e.g. 0.75).
const std::array<double, kIouThresholdCount>& iou_thresholds();
const std::array<double, kRecallThresholdCount>& recall_thresholds();

}  // namespace libreyolo::core::eval

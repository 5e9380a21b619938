#include "libreyolo/core/eval/box_iou.hpp"

#include <algorithm>

namespace libreyolo::core::eval {

// The arithmetic follows pycocotools' bbIou, which works on [x, y, w, h]: right edges are
// rebuilt as x + w. Doing the same here (rather than using x2 directly) keeps the result
// bit-identical to re-scoring our own results JSON with pycocotools.
double coco_box_iou(const Box& detection, const Box& ground_truth, bool ground_truth_is_crowd) {
  const double dx = detection.x1;
  const double dy = detection.y1;
  const double dw = detection.x2 - detection.x1;
  const double dh = detection.y2 - detection.y1;
  const double gx = ground_truth.x1;
  const double gy = ground_truth.y1;
  const double gw = ground_truth.x2 - ground_truth.x1;
  const double gh = ground_truth.y2 - ground_truth.y1;

  const double overlap_w = std::min(dx + dw, gx + gw) - std::max(dx, gx);
  if (overlap_w <= 0.0) return 0.0;
  const double overlap_h = std::min(dy + dh, gy + gh) - std::max(dy, gy);
  if (overlap_h <= 0.0) return 0.0;

  const double intersection = overlap_w * overlap_h;
  const double detection_area = dw * dh;
  const double ground_truth_area = gw * gh;
  const double denominator =
      ground_truth_is_crowd ? detection_area : detection_area + ground_truth_area - intersection;
  return intersection / denominator;
}

}  // namespace libreyolo::core::eval

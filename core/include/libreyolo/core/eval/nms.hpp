#pragma once
// Candidate boxes to final detections, as LibreYOLO's post-processing does it: candidates above
// the confidence threshold (each anchor's best class, or with multi_label every class above it,
// as LibreYOLO's YOLOv9 does), drop non-finite rows, map to original image pixels, clip, drop
// empty boxes, per-class greedy NMS, keep the max_det highest scores.

#include <torch/types.h>

#include <vector>

#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::eval {

struct NmsOptions {
  float conf = 0.001f;  // validation default (LibreYOLO: 0.001); predict uses 0.25
  float iou = 0.6f;     // suppress when IoU > iou
  int max_det = 300;
  // Every (anchor, class) pair above conf is a candidate, at most max_candidates of the highest
  // scores (the family's FamilyInfo::multi_label_nms); otherwise each anchor's best class only.
  bool multi_label = false;
  int max_candidates = 30000;
  // false: no suppression (set predictors, FamilyInfo::Suppression::none): the max_det highest
  // (anchor, class) scores above conf, mapped to original pixels and neither clipped nor
  // filtered further, as LibreYOLO's DETR post-processing does.
  bool suppress = true;
};

// How network-input pixels map back to the original image: original = (input - pad) / scale,
// per axis (a letterbox scales both axes alike, a stretch each its own way).
struct InputToOriginal {
  double scale_x = 1.0;
  double scale_y = 1.0;
  double pad_x = 0.0;
  double pad_y = 0.0;
  int original_width = 0;
  int original_height = 0;
};

// boxes [B, N, 4] xyxy and scores [B, N, C] on any device; one mapping per image.
// Returns detections per image in original pixels, highest score first.
std::vector<std::vector<Detection>> postprocess_detections(
    const torch::Tensor& boxes, const torch::Tensor& scores,
    const std::vector<InputToOriginal>& mapping, const NmsOptions& options);

// Greedy NMS on one class's boxes (CPU float32 [K, 4], scores [K]); indices kept, by score.
std::vector<int64_t> greedy_nms(const torch::Tensor& boxes, const torch::Tensor& scores, float iou);

}  // namespace libreyolo::core::eval

#pragma once
// Candidate boxes to final detections, the same for every family and as LibreYOLO's shared
// post-processing does it: best class per candidate, confidence threshold, drop non-finite
// rows, map to original image pixels, clip, drop empty boxes, per-class greedy NMS, keep the
// max_det highest scores.

#include <torch/types.h>

#include <vector>

#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::eval {

struct NmsOptions {
  float conf = 0.001f;  // validation default (LibreYOLO: 0.001); predict uses 0.25
  float iou = 0.6f;     // suppress when IoU > iou
  int max_det = 300;
};

// How network-input pixels map back to the original image: original = (input - pad) / scale.
struct InputToOriginal {
  double scale = 1.0;
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

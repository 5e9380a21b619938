#pragma once
// SimOTA's first two stages (YOLOX's label assignment, Ge et al. 2021), on their own so that a
// fused kernel can replace them: the centre prior, the gt-prediction IoU and the matching cost
// per (image, gt row, anchor). The later stages (dynamic k, the k cheapest anchors, conflicts)
// stay with the caller (the YOLOX family's simota.cpp).
//
// Per image b, padded gt row m and anchor a (anchor centre = (grid + 0.5) * stride):
//   in_centre(m, a) = a's centre strictly inside the square of half-side center_radius * stride(a)
//                     around m's centre, and m a real row;
//   candidate(a)    = in_centre(m, a) for some m;
//   iou(m, a)       = the IoU of m's box and a's predicted box (cx, cy, w, h; no epsilon; 0 where
//                     disjoint), 0 unless m is real and a a candidate;
//   cost(m, a)      = sum_c BCE(score(a, c), onehot(m)_c) + iou_weight * -log(iou + 1e-8)
//                     + outside_center_cost * [not in_centre(m, a)], +inf unless m is real and a a
//                     candidate. BCE clamps its logs at -100, as PyTorch's does.
// Composed (PyTorch ops) unless the fused_kernels policy allows the SDK's CUDA kernel
// `simota_cost` (docs/fused-kernels.md), which is written to give the same bits.

#include <torch/types.h>

#include <string>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::losses {

struct SimOtaCostOptions {
  double center_radius = 1.5;          // half-side of the centre region, in strides
  double iou_weight = 3.0;             // weight of the IoU cost
  double outside_center_cost = 1.0e6;  // added where the anchor is outside the gt's centre region
};

struct SimOtaCostInputs {
  torch::Tensor pred_boxes;   // [B, A, 4] float32 (cx, cy, w, h), input pixels
  torch::Tensor pred_scores;  // [B, A, C] float32 probabilities (any strides)
  torch::Tensor grid;         // [A, 2] float32 (col, row) of each anchor's cell
  torch::Tensor strides;      // A float32 values ([A] or [A, 1])
  torch::Tensor gt_boxes;     // [B, M, 4] float32 (cx, cy, w, h)
  torch::Tensor labels;       // [B, M] int64 in [0, C)
  torch::Tensor gt_valid;     // [B, M] bool
};

struct SimOtaCost {
  torch::Tensor iou;         // [B, M, A] float32, 0 off the real-row x candidate pairs
  torch::Tensor cost;        // [B, M, A] float32, +inf off those pairs
  torch::Tensor candidates;  // [B, A] bool
};

LIBREYOLO_SDK_API SimOtaCost simota_cost(const SimOtaCostInputs& in, const SimOtaCostOptions& options);

// The composed ops alone, whatever the policy (the reference the fused kernel is tested against).
LIBREYOLO_SDK_API SimOtaCost simota_cost_composed(const SimOtaCostInputs& in, const SimOtaCostOptions& options);

// Why the fused kernel would not take these inputs, whatever the policy ("" when it would).
LIBREYOLO_SDK_API std::string simota_cost_refusal(const SimOtaCostInputs& in);

// Pairwise IoU of (cx, cy, w, h) boxes: a [B, M, 4], b [B, A, 4] -> [B, M, A], in the arithmetic
// of LibreYOLO's bboxes_iou(xyxy=False): no epsilon, zero where the boxes are disjoint.
LIBREYOLO_SDK_API torch::Tensor pairwise_iou_cxcywh(const torch::Tensor& a, const torch::Tensor& b);

}  // namespace libreyolo::sdk::losses

#pragma once
// Fine-grained distribution refinement (FDR), D-FINE's box regression: each box edge is a
// distribution over reg_max + 1 bins whose values W(n) are spaced non-uniformly (dense near 0,
// sparse at the ends), and the edge offset is the expectation of W under the distribution.
// D-FINE (and the DETRs that build on it, DEIM) share these pieces: the decoder integrates and
// decodes, the criterion encodes ground truth into bins for its FGL and DDF losses.
//
// Conventions (as LibreYOLO's D-FINE): boxes are cx, cy, w, h normalised; `up` is the decoder's
// [1] parameter and `reg_scale` its [1] buffer (scalars as tensors so gradients and devices
// follow them); distances are in units of w / reg_scale (x) and h / reg_scale (y).
//
// Everything here stays on the tensors' device and never reads a value back to the host.

#include <torch/torch.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

// W(n), n = 0 .. reg_max: [-2 u, -(s^(k) - 1) ..., 0, ..., s^(k) - 1, 2 u] with u = |up| |reg_scale|
// and s = (u + 1)^(2 / (reg_max - 2)); a [reg_max + 1] tensor of up's dtype and device.
// reg_max must be even and at least 4.
LIBREYOLO_SDK_API torch::Tensor weighting_function(int64_t reg_max, const torch::Tensor& up, const torch::Tensor& reg_scale);

// sum_n softmax(logits)_n W(n) per edge: logits [..., 4 * (reg_max + 1)] -> offsets [..., 4].
LIBREYOLO_SDK_API torch::Tensor integrate_distribution(const torch::Tensor& corner_logits, const torch::Tensor& project);

// Edge offsets [..., 4] (left, top, right, bottom) from reference boxes [..., 4] (cx, cy, w, h)
// to boxes [..., 4] (cx, cy, w, h).
LIBREYOLO_SDK_API torch::Tensor distance_to_box(const torch::Tensor& reference, const torch::Tensor& distance,
                              const torch::Tensor& reg_scale);

// The FGL target of each edge: its bin coordinate and the weights of its two neighbouring bins.
struct EdgeBins {
  torch::Tensor bin;           // [n * 4] float: left bin index (clamped to [0, reg_max - eps])
  torch::Tensor weight_right;  // [n * 4]
  torch::Tensor weight_left;   // [n * 4]
};

// Ground-truth boxes [n, 4] (x1, y1, x2, y2) as bins relative to reference boxes [n, 4]
// (cx, cy, w, h); everything detached (targets). eps keeps the bin below reg_max.
LIBREYOLO_SDK_API EdgeBins box_to_edge_bins(const torch::Tensor& reference, const torch::Tensor& target_xyxy, int64_t reg_max,
                          const torch::Tensor& reg_scale, const torch::Tensor& up, double eps = 0.1);

}  // namespace libreyolo::sdk::detr

#pragma once
// Distribution focal loss (Li et al., GFL): each box side is predicted as a discrete distribution
// over reg_max bins 0 .. reg_max-1 (in units of the level's stride); its expectation is the
// distance, and the loss pulls probability onto the two bins around the target distance.

#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::losses {

// Integral decode: logits [..., reg_max] -> expected bin [...] = sum_i softmax(logits)_i * i.
LIBREYOLO_SDK_API torch::Tensor dfl_decode(const torch::Tensor& logits);

// Distribution focal loss per element, no reduction: logits [..., reg_max], target [...] a
// continuous bin position. With l = floor(t), r = l + 1:
//   loss = CE(logits, l) * (r - t) + CE(logits, r) * (t - l).
// The target is clamped to [0, reg_max - 1 - 0.01] first (so r stays a valid bin), which is what
// LibreYOLO's bbox2dist does before calling it.
LIBREYOLO_SDK_API torch::Tensor dfl_loss(const torch::Tensor& logits, const torch::Tensor& target);

// Distances (left, top, right, bottom) from anchor points [..., 2] to xyxy boxes [..., 4]
// (broadcast), in the same units as the inputs, clamped to [0, max_distance].
LIBREYOLO_SDK_API torch::Tensor bbox_to_distance(const torch::Tensor& anchor_points, const torch::Tensor& boxes,
                                                 double max_distance);

// The inverse: ltrb distances [..., 4] around anchor points [..., 2] -> xyxy boxes [..., 4].
LIBREYOLO_SDK_API torch::Tensor distance_to_bbox(const torch::Tensor& distances, const torch::Tensor& anchor_points);

}  // namespace libreyolo::sdk::losses

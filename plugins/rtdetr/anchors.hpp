#pragma once
// RT-DETR's encoder anchors (LibreYOLO's RTDETRTransformer._generate_anchors): one per memory
// position, centred in its cell, 0.05 * 2^level wide and high, in logit space; anchors with any
// coordinate within eps of 0 or 1 are invalid, hold +inf, and their memory is zeroed. A
// constant of the spatial shapes, so the decoder caches it per (shapes, device, dtype).

#include <torch/types.h>

#include "libreyolo/sdk/detr/ms_deform_attn.hpp"

namespace libreyolo::rtdetr {

struct EncoderAnchors {
  torch::Tensor logits;  // [1, L, 4] inverse-sigmoid anchors, +inf where invalid
  torch::Tensor valid;   // [1, L, 1] bool
};

EncoderAnchors make_encoder_anchors(const sdk::detr::SpatialShapes& shapes, const torch::TensorOptions& options,
                                    double grid_size = 0.05, double eps = 0.01);

}  // namespace libreyolo::rtdetr

#pragma once
// The encoder anchors of D-FINE's query selection (LibreYOLO's DFINETransformer._generate_anchors):
// one per memory position, centred in its cell, 0.05 * 2^level wide and high, in logit space;
// anchors with any coordinate within eps of 0 or 1 are invalid, hold +inf, and their memory is
// zeroed. LibreYOLO stores the anchors of its eval_spatial_size as buffers (decoder.anchors,
// decoder.valid_mask) and regenerates them in training; they are a function of the spatial
// shapes only.

#include <torch/types.h>

#include "libreyolo/sdk/detr/ms_deform_attn.hpp"

namespace libreyolo::dfine {

struct EncoderAnchors {
  torch::Tensor logits;  // [1, L, 4] inverse-sigmoid anchors, +inf where invalid
  torch::Tensor valid;   // [1, L, 1] bool
};

// Built in float32 on the CPU as LibreYOLO does, then moved to `options`' device and dtype.
EncoderAnchors make_encoder_anchors(const sdk::detr::SpatialShapes& shapes, const torch::TensorOptions& options,
                                    double grid_size = 0.05, double eps = 0.01);

}  // namespace libreyolo::dfine

#pragma once
// Pieces of DETR query selection that RT-DETR and D-FINE (and the DETRs after them) share.
//
// Encoder anchors (LibreYOLO's _generate_anchors in both families): one per memory position,
// centred in its cell, grid_size * 2^level wide and high, in logit space; anchors with any
// coordinate within eps of 0 or 1 are invalid, hold +inf, and their memory is zeroed. They are
// a function of the spatial shapes only, so decoders cache them per (shapes, device, dtype).
//
// xywh_scale: (width, height, width, height) as a device tensor, to turn cx, cy, w, h between
// pixels of the network input and the [0, 1] coordinates DETRs predict. Built with fills on the
// device: a small CPU tensor copied to a CUDA device would make the host wait for the stream.

#include <torch/types.h>

#include "libreyolo/sdk/detr/ms_deform_attn.hpp"
#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

struct EncoderAnchors {
  torch::Tensor logits;  // [1, L, 4] inverse-sigmoid anchors, +inf where invalid
  torch::Tensor valid;   // [1, L, 1] bool
};

// Built in float32 on the CPU as LibreYOLO does, then moved to `options`' device and dtype.
LIBREYOLO_SDK_API EncoderAnchors make_encoder_anchors(const SpatialShapes& shapes, const torch::TensorOptions& options,
                                                      double grid_size = 0.05, double eps = 0.01);

LIBREYOLO_SDK_API torch::Tensor xywh_scale(int64_t height, int64_t width, const torch::TensorOptions& options);

// Query selection keeps the best `queries` of the encoder's positions, so an input too small to
// hold that many (D-FINE-n at 224 px: 14 x 14 + 7 x 7 = 245 < 300) cannot train or predict.
// That is the user's input, not a bug: throws sdk::UserError (user_error.hpp) naming the
// positions per level and how much larger the input must be.
LIBREYOLO_SDK_API void require_query_positions(const SpatialShapes& shapes, int64_t queries);

}  // namespace libreyolo::sdk::detr

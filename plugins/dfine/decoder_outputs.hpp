#pragma once
// Where each tensor sits in the D-FINE detector's forward outputs (the criterion and decode()
// read them by these positions; the network and the criterion are written against this list).
// Entries a mode does not produce are undefined tensors.
//
//   training                                          inference
//   dec_logits   [L, B, Q, C]  every decoder layer     [1, B, Q, C]  the final layer only
//   dec_boxes    [L, B, Q, 4]  cx, cy, w, h in [0, 1]  [1, B, Q, 4]
//   dec_corners  [L, B, Q, 4 * (reg_max + 1)]  FDR corner-distribution logits of each layer
//   dec_refs     [L, B, Q, 4]  each layer's reference points (its input boxes, detached as LibreYOLO)
//   pre_logits   [B, Q, C]     pre_bbox_head / first score head before refinement ("_pre" terms)
//   pre_boxes    [B, Q, 4]
//   enc_logits   [B, Q, C]     the encoder's top-Q selection ("_enc_0" terms)
//   enc_boxes    [B, Q, 4]
//   dn_logits    [L, B, N, C]  denoising queries, when the batch has a ground-truth box
//   dn_boxes     [L, B, N, 4]
//   dn_corners   [L, B, N, 4 * (reg_max + 1)]
//   dn_refs      [L, B, N, 4]
//   dn_pre_logits [B, N, C]    ("_dn_pre" terms)
//   dn_pre_boxes  [B, N, 4]
//   dn_matched_gt [B, N] int64: the ground truth each denoising query reconstructs, -1 for none
//   up           [1]           the decoder's `up` parameter (weighting function, FDR)
//   reg_scale    [1]           the decoder's `reg_scale` buffer
//   input_size   [2] int64 on the CPU: the network input's (height, width)
//
// The teacher of the DDF loss is the final layer: dec_corners[L - 1], dec_logits[L - 1] (and
// dn_corners[L - 1], dn_logits[L - 1] for the denoising layers), so it is not a separate entry.

#include <cstddef>

namespace libreyolo::dfine::outputs {

constexpr std::size_t dec_logits = 0;
constexpr std::size_t dec_boxes = 1;
constexpr std::size_t dec_corners = 2;
constexpr std::size_t dec_refs = 3;
constexpr std::size_t pre_logits = 4;
constexpr std::size_t pre_boxes = 5;
constexpr std::size_t enc_logits = 6;
constexpr std::size_t enc_boxes = 7;
constexpr std::size_t dn_logits = 8;
constexpr std::size_t dn_boxes = 9;
constexpr std::size_t dn_corners = 10;
constexpr std::size_t dn_refs = 11;
constexpr std::size_t dn_pre_logits = 12;
constexpr std::size_t dn_pre_boxes = 13;
constexpr std::size_t dn_matched_gt = 14;
constexpr std::size_t up = 15;
constexpr std::size_t reg_scale = 16;
constexpr std::size_t input_size = 17;
constexpr std::size_t count = 18;

}  // namespace libreyolo::dfine::outputs

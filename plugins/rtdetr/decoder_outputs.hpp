#pragma once
// Where each tensor sits in the RT-DETR detector's forward_remainder() outputs (the criterion
// and decode() read them by these positions). Entries a mode does not produce are undefined.
//
//   training                                    inference
//   dec_logits  [L, B, Q, C]  every layer       [1, B, Q, C]  the eval layer only
//   dec_boxes   [L, B, Q, 4]  cx, cy, w, h in [0, 1]
//   enc_logits  [B, Q, C]     the encoder's top-Q selection (an auxiliary output)
//   enc_boxes   [B, Q, 4]
//   dn_logits   [L, B, N, C]  denoising queries, when the batch has a GT
//   dn_boxes    [L, B, N, 4]
//   dn_matched_gt [B, N] int64: the GT each denoising query reconstructs, -1 for none
//   input_size  [2] int64 on the CPU: the network input's (height, width)

#include <cstddef>

namespace libreyolo::rtdetr::outputs {

constexpr std::size_t dec_logits = 0;
constexpr std::size_t dec_boxes = 1;
constexpr std::size_t enc_logits = 2;
constexpr std::size_t enc_boxes = 3;
constexpr std::size_t dn_logits = 4;
constexpr std::size_t dn_boxes = 5;
constexpr std::size_t dn_matched_gt = 6;
constexpr std::size_t input_size = 7;
constexpr std::size_t count = 8;

}  // namespace libreyolo::rtdetr::outputs

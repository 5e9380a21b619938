#pragma once
// RTMDet's raw outputs to candidate boxes and scores, as LibreYOLO's postprocess/rtmdet.py up to
// (not including) its confidence filter and NMS, which the host applies to every family alike.

#include <libreyolo/sdk/detector.hpp>
#include <torch/types.h>

#include <array>
#include <cstdint>
#include <vector>

#include "config.hpp"

namespace libreyolo::families::rtmdet {

// outputs = {cls_P3, cls_P4, cls_P5, reg_P3, reg_P4, reg_P5} (RTMDetSepBNHead::forward).
// Float32 out, no host synchronisation (topk's only):
//   boxes  [B, N, 4] x1, y1, x2, y2 = prior -/+ distances, priors at cell corners
//          (col * stride, row * stride; mmdet's MlvlPointGenerator with offset 0), clamped to
//          the canvas [0, W] x [0, H] with W, H the P3 map's size times its stride (the input
//          size for inputs that are multiples of 32; mmdet clamps to the padded canvas);
//   scores [B, N, nc] sigmoid of the logits, where per level and image only the nms_pre highest
//          (prior, class) scores are kept and the others set to 0. mmdet and LibreYOLO take
//          the top nms_pre per level before NMS, so one level's noisy tail cannot crowd out
//          another level's candidates (selecting globally cost LibreYOLO 7-8 mAP).
// N = sum over levels of H_l * W_l, levels P3, P4, P5 in order, cells row-major (y outer).
sdk::Candidates decode_outputs(const std::vector<torch::Tensor>& outputs, int64_t num_classes,
                               int64_t nms_pre = kNmsPre, const std::array<int64_t, 3>& strides = kStrides);

// scores [B, A, C]: per image, the k highest of the A * C values kept and the rest zeroed (all
// kept when A * C <= k).
torch::Tensor keep_top_scores(const torch::Tensor& scores, int64_t k);

}  // namespace libreyolo::families::rtmdet

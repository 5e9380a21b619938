#pragma once
// The element-wise pieces of the RT-DETR criterion and of its Hungarian matcher, as LibreYOLO's
// models/rtdetr/loss.py computes them. Nothing here reduces, normalises by the box count or
// matches: the criterion does that. Inputs are cast to float32 (LibreYOLO's criterion casts its
// outputs to float32 under AMP too); results are float32.

#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

// Varifocal loss per element (LibreYOLO's loss_labels_vfl before its reduction): with
// p = sigmoid(logits) taken without gradient, weight = alpha * p^gamma * (1 - one_hot) +
// target_score, and BCE-with-logits(logits, target_score) * weight. target_score holds the IoU of
// the matched box at its true class and 0 elsewhere; one_hot is 1 at the true class of matched
// queries. All three have the same shape ([B, Q, C] in the criterion).
LIBREYOLO_SDK_API torch::Tensor varifocal_loss(const torch::Tensor& logits, const torch::Tensor& target_score,
                                               const torch::Tensor& one_hot, double alpha = 0.75,
                                               double gamma = 2.0);

// torchvision.ops.sigmoid_focal_loss with reduction "none": BCE-with-logits * (1 - p_t)^gamma,
// times alpha_t = alpha * t + (1 - alpha) * (1 - t) when alpha >= 0 (a negative alpha turns the
// class weighting off, as in torchvision).
LIBREYOLO_SDK_API torch::Tensor sigmoid_focal_loss(const torch::Tensor& logits, const torch::Tensor& targets,
                                                   double alpha = 0.25, double gamma = 2.0);

// The HungarianMatcher's focal class cost: logits [..., Q, C], gt_labels [..., M] (integral) ->
// [..., Q, M], at each GT's class: alpha (1 - p)^gamma (-log(p + 1e-8)) - (1 - alpha) p^gamma
// (-log(1 - p + 1e-8)). Labels are clamped into [0, C) before the lookup so that padding columns
// may hold anything; real labels must already lie there (checking would read the device).
LIBREYOLO_SDK_API torch::Tensor focal_matching_cost(const torch::Tensor& logits, const torch::Tensor& gt_labels,
                                                    double alpha = 0.25, double gamma = 2.0);

// The HungarianMatcher's whole cost, batched over images: logits [B, Q, C], boxes [B, Q, 4] and
// gt_boxes [B, M, 4] normalised cxcywh, gt_labels [B, M] -> [B, Q, M] =
//   w_bbox * L1 distance + w_class * focal_matching_cost + w_giou * (-GIoU),
// each image against its own padded GTs (LibreYOLO computes every query against every GT of the
// batch and keeps the image's own block: the same numbers). GIoU is detr::generalized_box_iou
// (LibreYOLO's eps placement). Padding columns hold finite values to be ignored. Computed without
// gradient, like the matcher; the result is detached.
LIBREYOLO_SDK_API torch::Tensor detr_matching_cost(const torch::Tensor& logits, const torch::Tensor& boxes,
                                                   const torch::Tensor& gt_labels, const torch::Tensor& gt_boxes,
                                                   double w_class = 2, double w_bbox = 5, double w_giou = 2);

}  // namespace libreyolo::sdk::detr

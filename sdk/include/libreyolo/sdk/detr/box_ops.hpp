#pragma once
// Box helpers of the DETR family that differ from the shared ones in sdk/losses/box_ops.hpp.
// Conversions (xywh_to_xyxy, xyxy_to_xywh) and the IoU of the VFL target (box_iou with
// IoUKind::iou and eps 1e-6 is LibreYOLO's RT-DETR box_iou exactly) come from there.

#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

// The logit of x, safe at 0 and 1 (LibreYOLO's inverse_sigmoid): x is clamped to [0, 1], then
// log(max(x, eps) / max(1 - x, eps)). A box of exactly 0 or 1 thus maps to about -/+11.5, not inf.
LIBREYOLO_SDK_API torch::Tensor inverse_sigmoid(const torch::Tensor& x, double eps = 1e-5);

// Element-wise GIoU of xyxy boxes, [..., 4] against [..., 4] (broadcast), as LibreYOLO's RT-DETR
// generalized_box_iou computes it: iou = inter / (union + 1e-6), giou = iou - (enclose - union) /
// (enclose + 1e-6). sdk::losses::box_iou(a, b, IoUKind::giou, 1e-6) adds eps to the enclosing area
// before subtracting the union as well, which moves the result by about 1e-6 / enclose: up to 1e-4
// on the small normalised boxes DETR matches, enough to change a matching cost tie, so the DETR
// costs and losses use this one. LibreYOLO asserts x2 >= x1; that would read the device, so it is
// not checked here: DETR boxes come from a sigmoid (w, h > 0) or from the dataset.
LIBREYOLO_SDK_API torch::Tensor generalized_box_iou(const torch::Tensor& a, const torch::Tensor& b);

// Pairwise form: a [..., N, 4], b [..., M, 4] (leading dimensions broadcast) -> [..., N, M].
LIBREYOLO_SDK_API torch::Tensor pairwise_generalized_box_iou(const torch::Tensor& a, const torch::Tensor& b);

}  // namespace libreyolo::sdk::detr

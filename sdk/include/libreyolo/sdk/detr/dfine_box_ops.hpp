#pragma once
// The box helpers of D-FINE's losses and matcher (LibreYOLO's models/dfine/box_ops.py; DEIM uses
// the same file). They differ from RT-DETR's (detr/box_ops.hpp) in two ways that show in the
// numbers: cx, cy, w, h -> x1, y1, x2, y2 clamps w and h at 0, since a D-FINE box decoded from
// edge distances can come out inverted; and neither IoU nor GIoU has an eps in its
// denominators. Element-wise on the last dimension ([..., 4]), broadcasting over the rest.

#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

// (cx, cy, w, h) -> (x1, y1, x2, y2) with w and h clamped at 0 (box_cxcywh_to_xyxy).
LIBREYOLO_SDK_API torch::Tensor dfine_xywh_to_xyxy(const torch::Tensor& boxes);

// inter / union of xyxy boxes, no eps (box_iou): a pair of zero-area boxes gives NaN.
LIBREYOLO_SDK_API torch::Tensor dfine_box_iou(const torch::Tensor& a, const torch::Tensor& b);

// iou - (enclose - union) / enclose, no eps (generalized_box_iou). LibreYOLO asserts x2 >= x1
// first; boxes from dfine_xywh_to_xyxy satisfy it, and checking would read the device.
LIBREYOLO_SDK_API torch::Tensor dfine_generalized_box_iou(const torch::Tensor& a, const torch::Tensor& b);

// Pairwise: a [..., N, 4], b [..., M, 4] (leading dimensions broadcast) -> [..., N, M].
LIBREYOLO_SDK_API torch::Tensor dfine_pairwise_generalized_box_iou(const torch::Tensor& a, const torch::Tensor& b);

}  // namespace libreyolo::sdk::detr

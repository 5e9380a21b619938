#pragma once
// Box conversions and the IoU family (IoU, GIoU, DIoU, CIoU) shared by the detection losses and
// assigners. Everything works on the last dimension ([..., 4]) and broadcasts over the rest, so
// a whole padded batch goes through one call. Math runs in float32.

#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::losses {

// (cx, cy, w, h) -> (x1, y1, x2, y2) and back, on the last dimension.
LIBREYOLO_SDK_API torch::Tensor xywh_to_xyxy(const torch::Tensor& boxes);
LIBREYOLO_SDK_API torch::Tensor xyxy_to_xywh(const torch::Tensor& boxes);

enum class IoUKind { iou, giou, diou, ciou };

// Element-wise IoU of xyxy boxes: a [..., 4] and b [..., 4] broadcast against each other; the
// result has the broadcast shape without the last dimension. eps guards the divisions (1e-7,
// like LibreYOLO). For CIoU the aspect-ratio weight alpha is computed without gradient, as in
// the reference implementation. Values: IoU in [0, 1]; GIoU/DIoU/CIoU in [-1, 1] (roughly).
LIBREYOLO_SDK_API torch::Tensor box_iou(const torch::Tensor& a, const torch::Tensor& b,
                                        IoUKind kind = IoUKind::iou, double eps = 1e-7);

// Pairwise IoU: a [..., N, 4], b [..., K, 4] (leading dimensions broadcast) -> [..., N, K].
LIBREYOLO_SDK_API torch::Tensor pairwise_box_iou(const torch::Tensor& a, const torch::Tensor& b,
                                                 IoUKind kind = IoUKind::iou, double eps = 1e-7);

// Element-wise GIoU as mmdet / LibreYOLO's RTMDet loss computes it (bbox_giou_aligned): box
// widths, heights and the enclosing box's sides are clamped at 0, and eps bounds the
// denominators from below (iou = inter / max(union, eps), giou = iou - (enclose - union) /
// max(enclose, eps)) instead of being added to them. On ordinary boxes it equals
// box_iou(a, b, IoUKind::giou) up to about eps / union (below 1e-6 for boxes of a pixel or
// more). It differs on inverted boxes (x2 < x1: box_iou counts a negative area, this 0) and on
// zero-area pairs (two identical points: box_iou -1, this 0). A head that decodes distances
// without exp (RTMDet t and s) can predict inverted boxes, so the RTMDet loss uses this one.
// Broadcasts like box_iou; float32.
LIBREYOLO_SDK_API torch::Tensor giou_aligned(const torch::Tensor& pred, const torch::Tensor& target,
                                             double eps = 1e-7);

// The GIoU loss, 1 - giou_aligned(pred, target), per element (no reduction or weighting).
LIBREYOLO_SDK_API torch::Tensor giou_loss(const torch::Tensor& pred, const torch::Tensor& target);

}  // namespace libreyolo::sdk::losses

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

}  // namespace libreyolo::sdk::losses

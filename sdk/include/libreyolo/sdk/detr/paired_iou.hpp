#pragma once
// IoU and GIoU of matched box pairs as DETR criteria compute them (LibreYOLO's RT-DETR and
// D-FINE box_ops, taken on the diagonal): eps = 1e-6 ADDED to the union and to the enclosing
// area. sdk::losses::box_iou uses 1e-7 and another GIoU form; the difference is below 1e-6 on
// ordinary boxes but a parity check at 1e-3 relative on tiny boxes needs the same formula.

#include <torch/types.h>

#include <utility>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

// a, b: [..., 4] xyxy, broadcast against each other. Returns (iou, giou), each [...].
LIBREYOLO_SDK_API std::pair<torch::Tensor, torch::Tensor> paired_iou_giou(const torch::Tensor& a,
                                                                          const torch::Tensor& b);

}  // namespace libreyolo::sdk::detr

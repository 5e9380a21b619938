#pragma once
// Post-processing without suppression, for set predictors (FamilyInfo::Suppression::none):
// LibreYOLO's DETR post-processing keeps the max_det highest (query, class) scores of the flat
// [N * C] score matrix, drops those at or below conf, and maps the boxes to original pixels
// without clipping them or dropping any.

#include <torch/types.h>

#include <vector>

#include "libreyolo/core/eval/nms.hpp"

namespace libreyolo::core::eval {

std::vector<std::vector<Detection>> top_scoring_detections(const torch::Tensor& boxes, const torch::Tensor& scores,
                                                           const std::vector<InputToOriginal>& mapping,
                                                           const NmsOptions& options);

}  // namespace libreyolo::core::eval

#pragma once
// Checks on evaluator input that a user (dataset) or a model can get wrong. They throw
// core::Error instead of letting a NaN score break sorting or an out-of-range class id index
// past the end of a table.

#include <cstddef>
#include <vector>

#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::eval {

void validate_ground_truth(const ImageGroundTruth& ground_truth, std::size_t class_count);
void validate_detections(std::int64_t image_id, const std::vector<Detection>& detections,
                         std::size_t class_count);

}  // namespace libreyolo::core::eval

#pragma once
// Box overlap as COCO scores it. Against a crowd region the "IoU" is intersection over the
// detection's own area: a detection lying wholly inside a crowd scores 1 however small it is,
// so it can be forgiven instead of counted as a false positive.

#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::eval {

double coco_box_iou(const Box& detection, const Box& ground_truth, bool ground_truth_is_crowd);

}  // namespace libreyolo::core::eval

#pragma once
// YOLO datasets number COCO's 80 classes 0..79; the official COCO annotation files use the
// original 91-slot ids (1..90 with gaps). Results meant for the official instances_*.json
// files need this mapping; results for our own ground-truth JSON do not.

#include <cstdint>
#include <vector>

namespace libreyolo::core::eval {

// Element k is the COCO category id of YOLO class k (80 entries).
const std::vector<std::int64_t>& coco80_to_coco91_category_ids();

}  // namespace libreyolo::core::eval

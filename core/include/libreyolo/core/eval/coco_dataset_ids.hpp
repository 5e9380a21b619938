#pragma once
// The ids a COCO JSON should carry. For COCO's own images (80 classes, file names such as
// 000000000139.jpg) they are COCO's: image id 139 and the 80 -> 91 category ids, so the
// predictions re-score against the official instances_val2017.json. For any other dataset
// they stay the evaluator's (image index, class index); the file names are written either way.

#include <cstdint>
#include <vector>

#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::eval {

struct CocoIds {
  bool official = false;                  // COCO's own ids
  std::vector<std::int64_t> image_ids;    // per image, in the evaluator's order
  std::vector<std::int64_t> category_ids;  // per class; empty: the class index
};

CocoIds coco_ids_for(const std::vector<ImageGroundTruth>& images, std::size_t class_count);

// Copies with image ids replaced by `ids.image_ids` (same order, same length).
std::vector<ImageGroundTruth> with_ids(std::vector<ImageGroundTruth> images, const CocoIds& ids);
std::vector<ImageDetections> with_ids(std::vector<ImageDetections> images, const CocoIds& ids);

}  // namespace libreyolo::core::eval

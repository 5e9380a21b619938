#pragma once
// Clipping boxes to the image and dropping the ones augmentation has made useless.
//
// LibreYOLO's YOLOX and yolo9 recipes keep a box when its width and height both exceed a
// minimum (strictly: w > 1 and h > 1 pixels at the end; yolo9 also w > 2 and h > 2 right after
// its mosaic). Ultralytics-style box_candidates thresholds (aspect ratio, visible area ratio)
// are here too but off by default, since LibreYOLO does not use them.

#include <vector>

#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

struct BoxFilter {
  float min_size = 0.0f;        // keep only if width > min_size and height > min_size
  float max_aspect_ratio = 0;   // keep only if max(w/h, h/w) < this; 0 turns it off
  float min_area_ratio = 0;     // keep only if clipped area / unclipped area > this; 0: off
};

// Clamps the box's coordinates into [0, width] x [0, height].
PixelBox clip_box(const PixelBox& box, float width, float height);

// Whether `clipped` survives `filter`. `unclipped_area` is the box's area after the geometric
// transform but before clipping to the image (for min_area_ratio); pass a value <= 0 when
// unknown and the area test is skipped. Degenerate boxes (w <= 0 or h <= 0) never pass.
bool keep_box(const PixelBox& clipped, const BoxFilter& filter, float unclipped_area = 0.0f);

// Clips every box to the image and drops those `filter` rejects, in place, keeping order.
void clip_and_filter(std::vector<PixelBox>& boxes, float width, float height,
                     const BoxFilter& filter);

}  // namespace libreyolo::core::data

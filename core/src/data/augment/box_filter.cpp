#include "libreyolo/core/data/augment/box_filter.hpp"

#include <algorithm>

namespace libreyolo::core::data {

PixelBox clip_box(const PixelBox& box, float width, float height) {
  PixelBox out = box;
  out.x1 = std::clamp(box.x1, 0.0f, width);
  out.x2 = std::clamp(box.x2, 0.0f, width);
  out.y1 = std::clamp(box.y1, 0.0f, height);
  out.y2 = std::clamp(box.y2, 0.0f, height);
  return out;
}

bool keep_box(const PixelBox& b, const BoxFilter& filter, float unclipped_area) {
  const float w = b.x2 - b.x1;
  const float h = b.y2 - b.y1;
  // Written so NaN coordinates fail every test.
  if (!(w > 0.0f && h > 0.0f)) return false;
  if (!(w > filter.min_size && h > filter.min_size)) return false;
  if (filter.max_aspect_ratio > 0.0f &&
      !(std::max(w / h, h / w) < filter.max_aspect_ratio)) {
    return false;
  }
  if (filter.min_area_ratio > 0.0f && unclipped_area > 0.0f &&
      !(w * h / unclipped_area > filter.min_area_ratio)) {
    return false;
  }
  return true;
}

void clip_and_filter(std::vector<PixelBox>& boxes, float width, float height,
                     const BoxFilter& filter) {
  std::size_t kept = 0;
  for (const PixelBox& box : boxes) {
    const PixelBox clipped = clip_box(box, width, height);
    const float area = (box.x2 - box.x1) * (box.y2 - box.y1);
    if (keep_box(clipped, filter, area)) boxes[kept++] = clipped;
  }
  boxes.resize(kept);
}

}  // namespace libreyolo::core::data

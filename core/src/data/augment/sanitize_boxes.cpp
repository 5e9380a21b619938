#include "libreyolo/core/data/augment/sanitize_boxes.hpp"

#include <cstddef>

namespace libreyolo::core::data {

bool box_is_sane(const PixelBox& b, ImageSize canvas, float min_size, float min_area) {
  const float w = b.x2 - b.x1;
  const float h = b.y2 - b.y1;
  const float width = static_cast<float>(canvas.width);
  const float height = static_cast<float>(canvas.height);
  // Every test written as "passes", so a NaN anywhere fails it, as in torchvision.
  const bool big_enough = w >= min_size && h >= min_size && w * h >= min_area;
  const bool not_negative = b.x1 >= 0.0f && b.y1 >= 0.0f && b.x2 >= 0.0f && b.y2 >= 0.0f;
  const bool inside = b.x1 <= width && b.x2 <= width && b.y1 <= height && b.y2 <= height;
  return big_enough && not_negative && inside;
}

void sanitize_boxes(std::vector<PixelBox>& boxes, ImageSize canvas,
                    const sdk::augment::SanitizeBoxes& config, float min_area) {
  // torchvision compares the float32 widths with min_size as a float32 scalar.
  const float min_size = static_cast<float>(config.min_size);
  std::size_t kept = 0;
  for (const PixelBox& box : boxes) {
    if (box_is_sane(box, canvas, min_size, min_area)) boxes[kept++] = box;
  }
  boxes.resize(kept);
}

}  // namespace libreyolo::core::data

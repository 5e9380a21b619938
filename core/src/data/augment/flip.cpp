#include "libreyolo/core/data/augment/flip.hpp"

#include <algorithm>
#include <cstddef>

namespace libreyolo::core::data {

void flip_horizontal(MutableImageView image, int content_width, int content_height,
                     std::vector<PixelBox>& boxes) {
  const int w = std::min(content_width, image.width);
  const int h = std::min(content_height, image.height);
  for (int y = 0; y < h; ++y) {
    std::uint8_t* left = image.pixels + static_cast<std::ptrdiff_t>(y) * image.width * 3;
    std::uint8_t* right = left + static_cast<std::ptrdiff_t>(w - 1) * 3;
    for (; left < right; left += 3, right -= 3) {
      std::swap(left[0], right[0]);
      std::swap(left[1], right[1]);
      std::swap(left[2], right[2]);
    }
  }
  const float fw = static_cast<float>(content_width);
  for (PixelBox& b : boxes) {
    const float x1 = fw - b.x2;
    b.x2 = fw - b.x1;
    b.x1 = x1;
  }
}

}  // namespace libreyolo::core::data

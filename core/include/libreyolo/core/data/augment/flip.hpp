#pragma once
// Horizontal flip, in place.

#include <vector>

#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

// Mirrors columns [0, content_width) of rows [0, content_height) of `image` in place and maps
// boxes x -> content_width - x. With top-left letterbox padding, the content is the top-left
// rectangle: LibreYOLO flips the image before padding it, so the padding stays on the right
// and bottom; flipping only the content keeps that.
void flip_horizontal(MutableImageView image, int content_width, int content_height,
                     std::vector<PixelBox>& boxes);

inline void flip_horizontal(MutableImageView image, std::vector<PixelBox>& boxes) {
  flip_horizontal(image, image.width, image.height, boxes);
}

}  // namespace libreyolo::core::data

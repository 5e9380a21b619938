#pragma once
// Resizing decoded uint8 RGB images, used once per image when the decode-once cache stores
// every image with its long side equal to imgsz.

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::data {

// Resizes to exactly width x height. Per axis: area averaging when shrinking (every source
// pixel contributes, no aliasing; the same as OpenCV's INTER_AREA for the common case) and
// bilinear with pixel-centre alignment when enlarging (OpenCV's INTER_LINEAR).
// Throws libreyolo::core::Error for an empty input or a non-positive target size.
Image resize_image(const Image& image, int width, int height);

// Scales so the longer side equals `long_side`, keeping the aspect ratio (the shorter side is
// rounded, at least 1). Returns a copy when the size already matches.
Image resize_long_side(const Image& image, int long_side);

}  // namespace libreyolo::core::data

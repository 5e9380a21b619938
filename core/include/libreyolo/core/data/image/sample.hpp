#pragma once
// What augmentation works on: borrowed uint8 pixels plus boxes in pixel coordinates of those
// pixels. Views, not copies: the decode-once cache owns the pixels and augmentation writes its
// result straight into the batch buffer.

#include <cstdint>
#include <vector>

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::data {

// A read-only RGB HWC uint8 image owned elsewhere (the image cache, or a scratch Image).
struct ImageView {
  int width = 0;
  int height = 0;
  const std::uint8_t* pixels = nullptr;  // width * height * 3 bytes, rows packed

  static ImageView of(const Image& image) { return {image.width, image.height, image.pixels.data()}; }
};

// A writable RGB HWC uint8 image owned elsewhere (a slot of the batch buffer).
struct MutableImageView {
  int width = 0;
  int height = 0;
  std::uint8_t* pixels = nullptr;
};

// A box in pixel coordinates of the image it belongs to.
struct PixelBox {
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  int class_id = 0;
};

// One image of the dataset as augmentation receives it.
struct SampleView {
  ImageView image;
  std::vector<PixelBox> boxes;
};

}  // namespace libreyolo::core::data

// The canvas's plain-memory parts, shared by the OpenCV and the OpenCV-less builds: making a
// picture and pasting pictures into it need no rasteriser.
#include <algorithm>
#include <cstring>

#include "libreyolo/core/draw/canvas.hpp"

namespace libreyolo::core::draw {

Canvas::Canvas(int width, int height, Rgb background) {
  image_.width = width;
  image_.height = height;
  image_.pixels.resize(static_cast<std::size_t>(width) * height * data::Image::kChannels);
  for (std::size_t i = 0; i < image_.pixels.size(); i += 3) {
    image_.pixels[i] = background.r, image_.pixels[i + 1] = background.g, image_.pixels[i + 2] = background.b;
  }
}

Canvas::Canvas(data::Image image) : image_(std::move(image)) {}

void Canvas::paste(const data::Image& picture, int x, int y) {
  for (int row = 0; row < picture.height; ++row) {
    const int target_y = y + row;
    if (target_y < 0 || target_y >= image_.height) continue;
    const int first = std::max(0, -x), last = std::min(picture.width, image_.width - x);
    if (first >= last) continue;
    std::memcpy(image_.pixel(x + first, target_y), picture.pixel(first, row),
                static_cast<std::size_t>(last - first) * data::Image::kChannels);
  }
}

}  // namespace libreyolo::core::draw

#include "libreyolo/core/data/augment/stretch_resize.hpp"

namespace libreyolo::core::data {

void stretch_resize(ImageView image, const sdk::augment::StretchResize& config,
                    MutableImageView out, std::vector<PixelBox>& boxes,
                    InterpolateScratch& scratch) {
  interpolate_bilinear(image, out, config.antialias, scratch);
  if (image.width == out.width && image.height == out.height) return;
  // resize_bounding_boxes: ratios computed in double, held in a float32 tensor.
  const float x_ratio = static_cast<float>(static_cast<double>(out.width) / image.width);
  const float y_ratio = static_cast<float>(static_cast<double>(out.height) / image.height);
  for (PixelBox& b : boxes) {
    b.x1 *= x_ratio;
    b.x2 *= x_ratio;
    b.y1 *= y_ratio;
    b.y2 *= y_ratio;
  }
}

}  // namespace libreyolo::core::data

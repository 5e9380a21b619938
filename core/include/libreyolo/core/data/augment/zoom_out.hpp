#pragma once
// torchvision.transforms.v2.RandomZoomOut: with probability `prob`, the image is placed at a
// random spot of a canvas r times its size (r ~ U[side.low, side.high)) filled with `fill`;
// boxes move with it (then are clamped to the canvas, as torchvision's pad does).
//
// The draws and the geometry are torchvision's, in float32 as its tensors compute them:
//   applied   U < prob
//   r         side.low + U * (side.high - side.low)
//   canvas    (int(w * r), int(h * r))
//   offset    left = int((canvas_w - w) * U1), top = int((canvas_h - h) * U2)
// skip_without_boxes is handled by the draw: no boxes, no draw, not applied.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/data/image/sample.hpp"
#include "libreyolo/sdk/augmentation.hpp"

namespace libreyolo::core::data {

struct ZoomOutParams {
  bool applied = false;
  int canvas_width = 0, canvas_height = 0;
  int left = 0, top = 0;  // where the image's top-left pixel lands
  std::uint8_t fill = 0;
};

// Throws libreyolo::core::Error for side.low < 1, side.low > side.high (torchvision refuses
// both) or a fill outside 0..255.
ZoomOutParams draw_zoom_out(const sdk::augment::ZoomOut& config, ImageSize image,
                            std::size_t box_count, std::mt19937_64& rng);

// Writes the canvas into `out` (resized; its buffer is reused between samples) and shifts
// `boxes`. When the draw was not applied, `out` becomes a copy of `image` and the boxes stay:
// callers that can go on with `image` itself check params.applied first.
void apply_zoom_out(ImageView image, const ZoomOutParams& params, Image& out,
                    std::vector<PixelBox>& boxes);

}  // namespace libreyolo::core::data

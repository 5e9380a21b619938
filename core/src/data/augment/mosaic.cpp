#include "libreyolo/core/data/augment/mosaic.hpp"

#include <algorithm>

#include "libreyolo/core/data/augment/random.hpp"

namespace libreyolo::core::data {

MosaicCentre random_mosaic_centre(int imgsz, double lo, double hi, std::mt19937_64& rng) {
  MosaicCentre c;
  c.y = static_cast<int>(uniform(rng, lo * imgsz, hi * imgsz));
  c.x = static_cast<int>(uniform(rng, lo * imgsz, hi * imgsz));
  return c;
}

TiledCanvas mosaic_canvas(int imgsz, MosaicCentre centre, const ImageView tiles[4]) {
  TiledCanvas canvas;
  canvas.width = canvas.height = 2 * imgsz;
  canvas.split_x = centre.x;
  canvas.split_y = centre.y;
  for (int i = 0; i < 4; ++i) {
    const ImageView& img = tiles[i];
    CanvasTile& t = canvas.tiles[i];
    t.image = img;
    const bool right = (i & 1) != 0;
    const bool bottom = (i & 2) != 0;
    // Left tiles end at the centre, right tiles start there; likewise vertically.
    t.origin_x = right ? centre.x : centre.x - img.width;
    t.origin_y = bottom ? centre.y : centre.y - img.height;
    t.x0 = std::max(t.origin_x, 0);
    t.y0 = std::max(t.origin_y, 0);
    t.x1 = std::min(t.origin_x + img.width, canvas.width);
    t.y1 = std::min(t.origin_y + img.height, canvas.height);
    if (img.pixels == nullptr || t.x1 <= t.x0 || t.y1 <= t.y0) t.x1 = t.x0 = t.y1 = t.y0 = 0;
  }
  return canvas;
}

void append_mosaic_boxes(const TiledCanvas& canvas, int tile, const std::vector<PixelBox>& boxes,
                         float scale, const BoxFilter& filter,
                         std::vector<PixelBox>& canvas_boxes) {
  const CanvasTile& t = canvas.tiles[tile];
  const float ox = static_cast<float>(t.origin_x);
  const float oy = static_cast<float>(t.origin_y);
  const float w = static_cast<float>(canvas.width);
  const float h = static_cast<float>(canvas.height);
  for (const PixelBox& b : boxes) {
    PixelBox moved = b;
    moved.x1 = b.x1 * scale + ox;
    moved.x2 = b.x2 * scale + ox;
    moved.y1 = b.y1 * scale + oy;
    moved.y2 = b.y2 * scale + oy;
    const PixelBox clipped = clip_box(moved, w, h);
    if (keep_box(clipped, filter)) canvas_boxes.push_back(clipped);
  }
}

void mosaic_warp(const TiledCanvas& canvas, const std::vector<PixelBox>& canvas_boxes,
                 const Affine2x3& m, const BoxFilter& filter, MutableImageView out,
                 WarpScratch& scratch, std::vector<PixelBox>& out_boxes) {
  warp_affine(canvas, m, out, scratch);
  out_boxes.clear();
  const float w = static_cast<float>(out.width);
  const float h = static_cast<float>(out.height);
  for (const PixelBox& b : canvas_boxes) {
    const PixelBox moved = transform_box(m, b);
    const PixelBox clipped = clip_box(moved, w, h);
    const float area = (moved.x2 - moved.x1) * (moved.y2 - moved.y1);
    if (keep_box(clipped, filter, area)) out_boxes.push_back(clipped);
  }
}

}  // namespace libreyolo::core::data

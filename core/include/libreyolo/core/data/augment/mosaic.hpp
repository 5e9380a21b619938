#pragma once
// YOLOX-style mosaic: four images around a random centre of a 2*imgsz canvas filled with 114,
// then one warp of that canvas into the imgsz x imgsz output.
//
// The canvas is never materialised: TiledCanvas describes it and warp_affine reads the four
// images through it, giving the bytes a real canvas would (the tiles do not overlap and the
// rest is 114, so each canvas pixel has exactly one source).
//
// Tile scale: LibreYOLO resizes each tile by min(imgsz / h, imgsz / w) (YOLOX) or
// min(1, that) (yolo9) before placing it. Our cache already stores every image with long side
// imgsz, so that factor is 1 and tiles are used as they are; the Mosaic stage rescales a tile only
// when a source hands over another size.

#include <random>
#include <vector>

#include "libreyolo/core/data/augment/affine_matrix.hpp"
#include "libreyolo/core/data/augment/box_filter.hpp"
#include "libreyolo/core/data/augment/warp_affine.hpp"
#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

// The random mosaic centre: int(U(lo * imgsz, hi * imgsz)) per axis (LibreYOLO: 0.5, 1.5),
// y drawn first.
struct MosaicCentre {
  int x = 0, y = 0;
};
MosaicCentre random_mosaic_centre(int imgsz, double lo, double hi, std::mt19937_64& rng);

// The 2*imgsz canvas with tile 0 ending at the centre from the top-left, 1 top-right,
// 2 bottom-left, 3 bottom-right; each tile is cropped where it would leave the canvas.
TiledCanvas mosaic_canvas(int imgsz, MosaicCentre centre, const ImageView tiles[4]);

// Appends tile `tile`'s boxes (in its own pixels, multiplied by `scale` first when the tile
// was rescaled) moved to canvas coordinates and clipped to the canvas, as YOLOX does, then drops
// those `filter` rejects. YOLOX keeps them all: a box clipped to a zero-height line at the
// canvas edge then turns, under rotation or shear, into a box of real size around no object
// (seen in our tests); filtering here (the Mosaic stage passes w > 1 and h > 1 in
// tile pixels) removes those phantom labels.
void append_mosaic_boxes(const TiledCanvas& canvas, int tile, const std::vector<PixelBox>& boxes,
                         float scale, const BoxFilter& filter,
                         std::vector<PixelBox>& canvas_boxes);

// The canvas -> output matrix of yolo9's mosaic: the whole 2*imgsz canvas resized to imgsz
// (cv2.resize by one half, no rotation, scale or translation jitter).
inline Affine2x3 mosaic_half_resize() { return Affine2x3::scale_translate(0.5, 0.5, 0.0, 0.0); }

// Warps `canvas` through `m` into `out` and maps `canvas_boxes` the same way: the four corners
// through `m`, their bounding box clipped to the output, then `filter` (degenerate boxes always
// dropped). Results replace `out_boxes`.
void mosaic_warp(const TiledCanvas& canvas, const std::vector<PixelBox>& canvas_boxes,
                 const Affine2x3& m, const BoxFilter& filter, MutableImageView out,
                 WarpScratch& scratch, std::vector<PixelBox>& out_boxes);

}  // namespace libreyolo::core::data

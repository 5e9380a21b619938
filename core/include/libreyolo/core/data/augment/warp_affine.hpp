#pragma once
// Affine warp of uint8 RGB images: inverse-mapped, bilinear in fixed point, constant border.
//
// The source may be a virtual canvas made of up to four tiles (the mosaic's 2x canvas) so the
// mosaic is warped straight from the cached images into the batch slot, with the same bytes a
// materialised canvas would give (every sample reads exactly the canvas pixel it would have
// read) but without filling and copying a 2x canvas per sample.

#include <cstdint>
#include <vector>

#include "libreyolo/core/data/augment/affine_matrix.hpp"
#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

inline constexpr std::uint8_t kBorderValue = 114;  // YOLOX's / LibreYOLO's grey

// One image placed on a canvas: its pixel (0, 0) lands at canvas (origin_x, origin_y), and only
// the canvas rectangle [x0, x1) x [y0, y1) shows it (the rest of the tile is cropped away).
struct CanvasTile {
  ImageView image;
  int origin_x = 0, origin_y = 0;
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // empty (x1 <= x0) for a tile that shows nothing
};

// A canvas of width x height made of tiles, border value everywhere no tile shows. Tiles sit in
// quadrants split at (split_x, split_y): tile 0 top-left, 1 top-right, 2 bottom-left,
// 3 bottom-right; each tile's rectangle lies inside its quadrant.
struct TiledCanvas {
  int width = 0, height = 0;
  int split_x = 0, split_y = 0;
  CanvasTile tiles[4];

  // The canvas that is just `image` (one tile, no split).
  static TiledCanvas single(ImageView image);
  // The pixel at integer canvas position (x, y), or nullptr where the border shows.
  const std::uint8_t* pixel(int x, int y) const;
};

// Per-column tables, reused between samples (no allocation once grown).
struct WarpScratch {
  std::vector<std::int64_t> column_x, column_y;
};

// dst(p) = src(m^-1(p)) for every pixel of `dst`, sampled at pixel centres in the continuous
// coordinates of affine_matrix.hpp (so a box maps through `m` exactly as its pixels do).
// Bilinear with 11-bit weights, positions in 16.16 fixed point built per row plus a per-column
// table (one add per pixel, no division); samples outside the canvas read `border`.
// Each output row is cut where pixels' 2x2 neighbourhoods enter or leave tiles: runs that see
// no tile are filled with `border` in bulk, runs inside one tile read it directly (SSE2 where
// available), and only the pixels straddling a tile edge look their neighbours up one by one.
// Throws libreyolo::core::Error for a singular matrix.
void warp_affine(const TiledCanvas& src, const Affine2x3& m, MutableImageView dst,
                 WarpScratch& scratch, std::uint8_t border = kBorderValue);

inline void warp_affine(ImageView src, const Affine2x3& m, MutableImageView dst,
                        WarpScratch& scratch, std::uint8_t border = kBorderValue) {
  warp_affine(TiledCanvas::single(src), m, dst, scratch, border);
}

}  // namespace libreyolo::core::data

#include "libreyolo/core/data/augment/warp_affine.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>

namespace libreyolo::core::data {
namespace {

constexpr int kPosBits = 16;   // fractional bits of a source position
constexpr int kCoefBits = 11;  // fractional bits of a bilinear weight (as OpenCV's resize)
constexpr int kCoefOne = 1 << kCoefBits;
constexpr int kRound = 1 << (2 * kCoefBits - 1);

inline const std::uint8_t* tile_pixel(const CanvasTile& t, int x, int y) {
  return t.image.pixels +
         (static_cast<std::ptrdiff_t>(y - t.origin_y) * t.image.width + (x - t.origin_x)) * 3;
}

}  // namespace

TiledCanvas TiledCanvas::single(ImageView image) {
  TiledCanvas canvas;
  canvas.width = image.width;
  canvas.height = image.height;
  canvas.split_x = INT_MAX;  // every position is in quadrant 0
  canvas.split_y = INT_MAX;
  canvas.tiles[0] = {image, 0, 0, 0, 0, image.width, image.height};
  return canvas;
}

const std::uint8_t* TiledCanvas::pixel(int x, int y) const {
  const CanvasTile& t = tiles[(x >= split_x ? 1 : 0) + (y >= split_y ? 2 : 0)];
  if (x < t.x0 || x >= t.x1 || y < t.y0 || y >= t.y1) return nullptr;
  return tile_pixel(t, x, y);
}

namespace {

// One output pixel from its 2x2 source neighbourhood and 11-bit weights.
inline void blend(const std::uint8_t* p00, const std::uint8_t* p01, const std::uint8_t* p10,
                  const std::uint8_t* p11, int fx, int fy, std::uint8_t* out) {
  const int w00 = (kCoefOne - fx) * (kCoefOne - fy);
  const int w01 = fx * (kCoefOne - fy);
  const int w10 = (kCoefOne - fx) * fy;
  const int w11 = fx * fy;
  for (int ch = 0; ch < 3; ++ch) {
    out[ch] = static_cast<std::uint8_t>(
        (p00[ch] * w00 + p01[ch] * w01 + p10[ch] * w10 + p11[ch] * w11 + kRound) >>
        (2 * kCoefBits));
  }
}

// Narrows [lo, hi) to the x where lo_bound <= s0 + ds * x < hi_bound.
void narrow(double s0, double ds, double lo_bound, double hi_bound, double& lo, double& hi) {
  if (ds == 0.0) {
    if (!(s0 >= lo_bound && s0 < hi_bound)) hi = lo;
    return;
  }
  double a = (lo_bound - s0) / ds;
  double b = (hi_bound - s0) / ds;
  if (ds < 0.0) std::swap(a, b);
  lo = std::max(lo, a);
  hi = std::min(hi, b);
}

struct Span {
  int begin = 0, end = 0;  // output columns [begin, end)
  int tile = 0;
};

}  // namespace

void warp_affine(const TiledCanvas& src, const Affine2x3& m, MutableImageView dst,
                 WarpScratch& scratch, std::uint8_t border) {
  if (dst.width <= 0 || dst.height <= 0) return;
  const Affine2x3 inv = m.inverse();
  const double one = static_cast<double>(1 << kPosBits);

  // Source position (in pixel-index units, centres at integers) of output pixel (x, y):
  //   inv * (x + 0.5, y + 0.5) - 0.5  =  inv.a x + inv.b y + cx  (and likewise for y).
  const double cx = inv.a * 0.5 + inv.b * 0.5 + inv.c - 0.5;
  const double cy = inv.d * 0.5 + inv.e * 0.5 + inv.f - 0.5;
  scratch.column_x.resize(static_cast<std::size_t>(dst.width));
  scratch.column_y.resize(static_cast<std::size_t>(dst.width));
  for (int x = 0; x < dst.width; ++x) {
    scratch.column_x[static_cast<std::size_t>(x)] = std::llround(inv.a * x * one);
    scratch.column_y[static_cast<std::size_t>(x)] = std::llround(inv.d * x * one);
  }
  const std::int64_t* col_x = scratch.column_x.data();
  const std::int64_t* col_y = scratch.column_y.data();
  const std::uint8_t border_pixel[3] = {border, border, border};
  const int w = src.width;
  const int h = src.height;
  // Fixed-point positions differ from the exact ones by ~2^-16 px; spans keep this far from
  // the edges of the region where a whole 2x2 neighbourhood is inside one tile.
  constexpr double kMargin = 1e-3;

  for (int y = 0; y < dst.height; ++y) {
    const double sx0 = inv.b * y + cx;
    const double sy0 = inv.e * y + cy;
    const std::int64_t row_x = std::llround(sx0 * one);
    const std::int64_t row_y = std::llround(sy0 * one);
    std::uint8_t* row_out = dst.pixels + static_cast<std::ptrdiff_t>(y) * dst.width * 3;

    // The columns of this row whose neighbourhood lies inside one tile: one span per tile
    // (the source positions of a row lie on a line, which meets a rectangle in one piece).
    Span spans[4];
    int span_count = 0;
    for (int i = 0; i < 4; ++i) {
      const CanvasTile& t = src.tiles[i];
      if (t.x1 - t.x0 < 2 || t.y1 - t.y0 < 2) continue;
      double lo = 0.0, hi = dst.width;
      narrow(sx0, inv.a, t.x0 + kMargin, t.x1 - 1 - kMargin, lo, hi);
      narrow(sy0, inv.d, t.y0 + kMargin, t.y1 - 1 - kMargin, lo, hi);
      const int begin = static_cast<int>(std::ceil(std::max(lo, 0.0)));
      const int end = static_cast<int>(std::ceil(std::min(hi, static_cast<double>(dst.width))));
      if (end > begin) spans[span_count++] = {begin, end, i};
    }
    for (int i = 1; i < span_count; ++i) {  // at most four: insertion sort by start
      for (int j = i; j > 0 && spans[j].begin < spans[j - 1].begin; --j) {
        std::swap(spans[j], spans[j - 1]);
      }
    }

    int x = 0;
    for (int k = 0; k <= span_count; ++k) {
      const int gap_end = k < span_count ? spans[k].begin : dst.width;
      // Columns outside every span: each neighbour looked up on its own (tile edges, canvas
      // edges, border).
      for (; x < gap_end; ++x) {
        std::uint8_t* out = row_out + static_cast<std::ptrdiff_t>(x) * 3;
        const std::int64_t sx = row_x + col_x[x];
        const std::int64_t sy = row_y + col_y[x];
        // >> of a negative value floors on every compiler we build with (arithmetic shift;
        // guaranteed from C++20).
        const std::int64_t ix64 = sx >> kPosBits;
        const std::int64_t iy64 = sy >> kPosBits;
        if (ix64 < -1 || iy64 < -1 || ix64 >= w || iy64 >= h) {
          out[0] = out[1] = out[2] = border;  // all four neighbours outside the canvas
          continue;
        }
        const int ix = static_cast<int>(ix64);
        const int iy = static_cast<int>(iy64);
        const std::uint8_t* p00 = src.pixel(ix, iy);
        const std::uint8_t* p01 = src.pixel(ix + 1, iy);
        const std::uint8_t* p10 = src.pixel(ix, iy + 1);
        const std::uint8_t* p11 = src.pixel(ix + 1, iy + 1);
        blend(p00 ? p00 : border_pixel, p01 ? p01 : border_pixel, p10 ? p10 : border_pixel,
              p11 ? p11 : border_pixel,
              static_cast<int>((sx >> (kPosBits - kCoefBits)) & (kCoefOne - 1)),
              static_cast<int>((sy >> (kPosBits - kCoefBits)) & (kCoefOne - 1)), out);
      }
      if (k == span_count) break;
      // A span: every neighbourhood inside this tile, read straight from its pixels with
      // positions made tile-local.
      const CanvasTile& t = src.tiles[spans[k].tile];
      constexpr std::int64_t kOne = std::int64_t{1} << kPosBits;
      const std::int64_t local_x = row_x - static_cast<std::int64_t>(t.origin_x) * kOne;
      const std::int64_t local_y = row_y - static_cast<std::int64_t>(t.origin_y) * kOne;
      const std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(t.image.width) * 3;
      const std::uint8_t* pixels = t.image.pixels;
      for (; x < spans[k].end; ++x) {
        const std::int64_t sx = local_x + col_x[x];
        const std::int64_t sy = local_y + col_y[x];
        const std::uint8_t* p =
            pixels + (sy >> kPosBits) * stride + (sx >> kPosBits) * 3;
        blend(p, p + 3, p + stride, p + stride + 3,
              static_cast<int>((sx >> (kPosBits - kCoefBits)) & (kCoefOne - 1)),
              static_cast<int>((sy >> (kPosBits - kCoefBits)) & (kCoefOne - 1)),
              row_out + static_cast<std::ptrdiff_t>(x) * 3);
      }
    }
  }
}

}  // namespace libreyolo::core::data

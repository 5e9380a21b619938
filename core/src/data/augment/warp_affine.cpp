#include "libreyolo/core/data/augment/warp_affine.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "libreyolo/core/data/augment/simd.hpp"

namespace libreyolo::core::data {
namespace {

constexpr int kPosBits = 16;   // fractional bits of a source position
constexpr int kCoefBits = 11;  // fractional bits of a bilinear weight (as OpenCV's resize)
constexpr int kCoefOne = 1 << kCoefBits;
constexpr int kRound = 1 << (2 * kCoefBits - 1);
constexpr std::int64_t kPosOne = std::int64_t{1} << kPosBits;

// Fixed-point positions differ from the exact ones by ~2^-16 px; column ranges are computed
// this much on the safe side, so rounding never puts a pixel in the wrong kind of segment.
constexpr double kMargin = 1e-3;

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

inline int weight(std::int64_t position) {
  return static_cast<int>((position >> (kPosBits - kCoefBits)) & (kCoefOne - 1));
}

// The source positions of one output row, in pixel-index units (centres at integers):
// column x samples (x0 + dx * x, y0 + dy * x).
struct RowLine {
  double x0 = 0, y0 = 0, dx = 0, dy = 0;
};

struct Range {
  int begin = 0, end = 0;
  bool contains(int x) const { return x >= begin && x < end; }
};

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

// The columns of a row of `width` whose position lies in [x_lo, x_hi) x [y_lo, y_hi): one
// interval, since a line meets a rectangle in one piece.
Range columns_within(const RowLine& line, double x_lo, double x_hi, double y_lo, double y_hi,
                     int width) {
  double lo = 0.0, hi = width;
  narrow(line.x0, line.dx, x_lo, x_hi, lo, hi);
  narrow(line.y0, line.dy, y_lo, y_hi, lo, hi);
  const double w = width;
  const int begin = static_cast<int>(std::ceil(std::clamp(lo, 0.0, w)));
  const int end = static_cast<int>(std::ceil(std::clamp(hi, 0.0, w)));
  return {begin, std::max(begin, end)};
}

enum class SegmentKind {
  border,  // no neighbour in any tile: the border value
  mixed,   // neighbours in different tiles or the border: looked up one by one
  tile,    // the whole neighbourhood inside one tile: read straight from its pixels
};

struct Segment {
  Range columns;
  SegmentKind kind = SegmentKind::border;
  int tile = 0;
};

// The fast path keeps tile-local positions in 32 bits (16.16 fixed point); larger images go
// the exact 64-bit way of the mixed path.
bool has_32_bit_positions(const CanvasTile& t) {
  constexpr int kLimit = 1 << (31 - kPosBits);
  return t.image.width < kLimit && t.image.height < kLimit;
}

// Two cuts per range (four tiles, two ranges each) and the row's two ends.
constexpr int kMaxCuts = 2 + 4 * 2 * 2;
using RowSegments = std::array<Segment, kMaxCuts - 1>;

// Splits one output row into segments by how each pixel's 2x2 neighbourhood meets the tiles.
int row_segments(const TiledCanvas& src, const RowLine& line, int width, RowSegments& out) {
  Range inside[4], touching[4];
  int cuts[kMaxCuts] = {0, width};
  int cut_count = 2;
  for (int i = 0; i < 4; ++i) {
    const CanvasTile& t = src.tiles[i];
    if (t.x1 <= t.x0 || t.y1 <= t.y0) continue;
    // A neighbourhood touches the tile when its top-left sample is within one pixel before it.
    touching[i] = columns_within(line, t.x0 - 1 - kMargin, t.x1 + kMargin, t.y0 - 1 - kMargin,
                                 t.y1 + kMargin, width);
    if (has_32_bit_positions(t)) {
      inside[i] = columns_within(line, t.x0 + kMargin, t.x1 - 1 - kMargin, t.y0 + kMargin,
                                 t.y1 - 1 - kMargin, width);
    }
    for (const Range& r : {touching[i], inside[i]}) {
      cuts[cut_count++] = r.begin;
      cuts[cut_count++] = r.end;
    }
  }
  for (int i = 1; i < cut_count; ++i) {  // at most 18: insertion sort beats std::sort here
    for (int j = i; j > 0 && cuts[j] < cuts[j - 1]; --j) std::swap(cuts[j], cuts[j - 1]);
  }
  int count = 0;
  for (int k = 0; k + 1 < cut_count; ++k) {
    const int begin = cuts[k], end = cuts[k + 1];
    if (begin >= end) continue;
    Segment s{{begin, end}, SegmentKind::border, 0};
    for (int i = 0; i < 4; ++i) {
      if (inside[i].contains(begin)) {
        s.kind = SegmentKind::tile;
        s.tile = i;
        break;
      }
      if (touching[i].contains(begin)) s.kind = SegmentKind::mixed;
    }
    if (count > 0 && out[count - 1].kind == s.kind && out[count - 1].tile == s.tile) {
      out[count - 1].columns.end = end;
    } else {
      out[count++] = s;
    }
  }
  return count;
}

// Fixed-point source positions of a row: column x is at (row_x + col_x[x], row_y + col_y[x]).
struct RowPositions {
  std::int64_t row_x = 0, row_y = 0;
  const std::int64_t* col_x = nullptr;
  const std::int64_t* col_y = nullptr;
};

void warp_mixed(const TiledCanvas& src, const RowPositions& pos, Range columns,
                std::uint8_t border, std::uint8_t* row_out) {
  const std::uint8_t border_pixel[3] = {border, border, border};
  auto or_border = [&](const std::uint8_t* p) { return p ? p : border_pixel; };
  for (int x = columns.begin; x < columns.end; ++x) {
    const std::int64_t sx = pos.row_x + pos.col_x[x];
    const std::int64_t sy = pos.row_y + pos.col_y[x];
    // >> of a negative value floors on every compiler we build with (arithmetic shift;
    // guaranteed from C++20). Mixed columns lie within a pixel of a tile, so these fit an int.
    const int ix = static_cast<int>(sx >> kPosBits);
    const int iy = static_cast<int>(sy >> kPosBits);
    blend(or_border(src.pixel(ix, iy)), or_border(src.pixel(ix + 1, iy)),
          or_border(src.pixel(ix, iy + 1)), or_border(src.pixel(ix + 1, iy + 1)), weight(sx),
          weight(sy), row_out + static_cast<std::ptrdiff_t>(x) * 3);
  }
}

#ifdef __SSE2__
// The blend sum of the 2x2 neighbourhood at `top` (row below at `top + stride`), rounded.
// Vertical pass with pmaddwd, horizontal in 32 bits (pmuludq: SSE2 has no 32-bit mullo), so the
// result is exactly blend()'s.
inline void blend_sse2(const std::uint8_t* top, std::ptrdiff_t stride, int fx, int fy,
                       std::uint8_t* out) {
  const __m128i zero = _mm_setzero_si128();
  // Eight bytes from each row: the two pixels plus two more. Reading the lower row from two
  // bytes early keeps both loads inside the image (the upper row precedes it, the lower one
  // follows the upper).
  const __m128i upper = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(top));
  const __m128i lower =
      _mm_srli_si128(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(top + stride - 2)), 2);
  const __m128i pairs = _mm_unpacklo_epi8(upper, lower);  // u0 l0 u1 l1 ... u5 l5
  const __m128i wy = _mm_set1_epi32((fy << 16) | (kCoefOne - fy));
  const __m128i v_lo = _mm_madd_epi16(_mm_unpacklo_epi8(pairs, zero), wy);  // c0 c1 c2 c3
  const __m128i v_hi = _mm_madd_epi16(_mm_unpackhi_epi8(pairs, zero), wy);  // c4 c5
  const __m128i left = v_lo;
  const __m128i right = _mm_or_si128(_mm_srli_si128(v_lo, 12), _mm_slli_si128(v_hi, 4));
  const __m128i diff = _mm_sub_epi32(right, left);
  const __m128i f = _mm_set1_epi32(fx);
  const __m128i even = _mm_mul_epu32(diff, f);
  const __m128i odd = _mm_mul_epu32(_mm_srli_epi64(diff, 32), f);
  const __m128i product = _mm_unpacklo_epi32(_mm_shuffle_epi32(even, _MM_SHUFFLE(0, 0, 2, 0)),
                                             _mm_shuffle_epi32(odd, _MM_SHUFFLE(0, 0, 2, 0)));
  const __m128i sum = _mm_add_epi32(_mm_add_epi32(_mm_slli_epi32(left, kCoefBits), product),
                                    _mm_set1_epi32(kRound));
  const __m128i bytes = _mm_packus_epi16(
      _mm_packs_epi32(_mm_srli_epi32(sum, 2 * kCoefBits), zero), zero);
  const std::uint32_t rgb = static_cast<std::uint32_t>(_mm_cvtsi128_si32(bytes));
  out[0] = static_cast<std::uint8_t>(rgb);
  out[1] = static_cast<std::uint8_t>(rgb >> 8);
  out[2] = static_cast<std::uint8_t>(rgb >> 16);
}
#endif

// Where each pixel of a run reads: the byte offset of its top-left neighbour in the tile and
// its 11-bit weights.
constexpr int kRun = 64;
constexpr int kPrefetchAhead = 16;
struct Taps {
  std::int32_t offset[kRun], fx[kRun], fy[kRun];
};

// A loop of its own so that it vectorises; blending then costs no scalar arithmetic per pixel.
// Tile-local positions are below 2^31 (has_32_bit_positions), so their low 32 bits are them
// exactly, whatever the 64-bit terms were; byte offsets fit too (kMaxImagePixels).
LIBREYOLO_VECTOR_CLONES void tile_taps(const std::int64_t* col_x, const std::int64_t* col_y,
                                       std::int64_t local_x, std::int64_t local_y,
                                       std::int32_t stride, int n, Taps& taps) {
  for (int i = 0; i < n; ++i) {
    const auto sx = static_cast<std::uint32_t>(local_x + col_x[i]);
    const auto sy = static_cast<std::uint32_t>(local_y + col_y[i]);
    taps.offset[i] = static_cast<std::int32_t>(sy >> kPosBits) * stride +
                     static_cast<std::int32_t>(sx >> kPosBits) * 3;
    taps.fx[i] = static_cast<std::int32_t>((sx >> (kPosBits - kCoefBits)) & (kCoefOne - 1));
    taps.fy[i] = static_cast<std::int32_t>((sy >> (kPosBits - kCoefBits)) & (kCoefOne - 1));
  }
}

void warp_inside_tile(const CanvasTile& t, const RowPositions& pos, Range columns,
                      std::uint8_t* row_out) {
  const std::int64_t local_x = pos.row_x - static_cast<std::int64_t>(t.origin_x) * kPosOne;
  const std::int64_t local_y = pos.row_y - static_cast<std::int64_t>(t.origin_y) * kPosOne;
  const auto stride = static_cast<std::int32_t>(t.image.width * 3);
  Taps taps;
  for (int x = columns.begin; x < columns.end; x += kRun) {
    const int n = std::min(kRun, columns.end - x);
    tile_taps(pos.col_x + x, pos.col_y + x, local_x, local_y, stride, n, taps);
    std::uint8_t* out = row_out + static_cast<std::ptrdiff_t>(x) * 3;
    for (int i = 0; i < n; ++i, out += 3) {
      const std::uint8_t* top = t.image.pixels + taps.offset[i];
#ifdef __SSE2__
      // Zoomed-out or rotated warps read the tiles sparsely, mostly from memory: ask for the
      // neighbourhood a few pixels ahead so that its rows arrive in time.
      if (i + kPrefetchAhead < n) {
        const auto* ahead =
            reinterpret_cast<const char*>(t.image.pixels + taps.offset[i + kPrefetchAhead]);
        _mm_prefetch(ahead, _MM_HINT_T0);
        _mm_prefetch(ahead + stride, _MM_HINT_T0);
      }
      blend_sse2(top, stride, taps.fx[i], taps.fy[i], out);
#else
      blend(top, top + 3, top + stride, top + stride + 3, taps.fx[i], taps.fy[i], out);
#endif
    }
  }
}

}  // namespace

void warp_affine(const TiledCanvas& src, const Affine2x3& m, MutableImageView dst,
                 WarpScratch& scratch, std::uint8_t border) {
  if (dst.width <= 0 || dst.height <= 0) return;
  const Affine2x3 inv = m.inverse();
  const double one = static_cast<double>(kPosOne);

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

  RowSegments segments;
  for (int y = 0; y < dst.height; ++y) {
    const RowLine line{inv.b * y + cx, inv.e * y + cy, inv.a, inv.d};
    const RowPositions pos{std::llround(line.x0 * one), std::llround(line.y0 * one),
                           scratch.column_x.data(), scratch.column_y.data()};
    std::uint8_t* row_out = dst.pixels + static_cast<std::ptrdiff_t>(y) * dst.width * 3;
    const int count = row_segments(src, line, dst.width, segments);
    for (int k = 0; k < count; ++k) {
      const Segment& s = segments[static_cast<std::size_t>(k)];
      switch (s.kind) {
        case SegmentKind::border:
          std::memset(row_out + static_cast<std::ptrdiff_t>(s.columns.begin) * 3, border,
                      static_cast<std::size_t>(s.columns.end - s.columns.begin) * 3);
          break;
        case SegmentKind::mixed:
          warp_mixed(src, pos, s.columns, border, row_out);
          break;
        case SegmentKind::tile:
          warp_inside_tile(src.tiles[s.tile], pos, s.columns, row_out);
          break;
      }
    }
  }
}

}  // namespace libreyolo::core::data

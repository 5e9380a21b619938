#include "libreyolo/core/data/augment/resize_bilinear.hpp"

#include <cmath>
#include <cstddef>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "libreyolo/core/data/augment/simd.hpp"

namespace libreyolo::core::data {
namespace {

constexpr int kCoefBits = 11;
constexpr int kCoefOne = 1 << kCoefBits;
constexpr int kRound = 1 << (2 * kCoefBits - 1);

// For output indices [first, first + count) of an axis resized from `in` to `out` samples:
// the two source indices and the weight of the second, OpenCV INTER_LINEAR style (source
// position (o + 0.5) * in / out - 0.5, clamped to the first / last sample at the edges).
// `mirror` reads output index out - 1 - o instead of o.
void axis_table(int in, int out, bool mirror, int first, int count, std::vector<std::int32_t>& a,
                std::vector<std::int32_t>& b, std::vector<std::int32_t>& weight) {
  a.resize(static_cast<std::size_t>(count));
  b.resize(static_cast<std::size_t>(count));
  weight.resize(static_cast<std::size_t>(count));
  const double scale = static_cast<double>(in) / out;
  for (int i = 0; i < count; ++i) {
    const int o = mirror ? out - 1 - (first + i) : first + i;
    const double pos = (o + 0.5) * scale - 0.5;
    int lo = static_cast<int>(std::floor(pos));
    int frac = static_cast<int>(std::lround((pos - lo) * kCoefOne));
    if (frac == kCoefOne) {
      ++lo;
      frac = 0;
    }
    if (lo < 0) {
      lo = 0;
      frac = 0;
    }
    if (lo >= in - 1) {
      lo = in - 1;
      frac = 0;
    }
    const auto k = static_cast<std::size_t>(i);
    a[k] = lo;
    b[k] = lo + 1 < in ? lo + 1 : lo;
    weight[k] = frac;
  }
}

// A source row and how many bytes may be read from its start (loads may run past the row).
struct SourceRow {
  const std::uint8_t* pixels = nullptr;
  std::size_t readable = 0;
};

// Row `sy` of the padded canvas (src.width pixels): straight from the image where that row of
// it is whole, else assembled in `buffer`.
SourceRow padded_row(const PaddedImage& src, int sy, std::vector<std::uint8_t>& buffer) {
  const ImageView& image = src.image;
  const std::size_t image_row = static_cast<std::size_t>(image.width) * 3;
  const bool inside = sy < image.height;
  const std::uint8_t* row = inside ? image.pixels + static_cast<std::size_t>(sy) * image_row
                                   : nullptr;
  if (inside && image.width >= src.width) {
    return {row, static_cast<std::size_t>(image.height - sy) * image_row};
  }
  const std::size_t n = static_cast<std::size_t>(src.width) * 3;
  buffer.resize(n);
  const std::size_t copied = inside ? image_row : 0;
  if (copied > 0) std::memcpy(buffer.data(), row, copied);
  std::memset(buffer.data() + copied, src.fill, n - copied);
  return {buffer.data(), n};
}

// The horizontal pass writes whole 4-lane vectors: one lane past the row's last pixel.
constexpr std::size_t kRowSlack = 1;

// One source row resized to `width` pixels, values scaled by 2^11: out = p0 * (1 - w) + p1 * w
// per channel, with p1 the pixel after p0 or p0 itself (then w = 0).
void resize_row(SourceRow row, const std::int32_t* xa, const std::int32_t* xb,
                const std::int32_t* xw, int width, std::int32_t* out) {
#ifdef __SSE2__
  const __m128i zero = _mm_setzero_si128();
#endif
  for (int x = 0; x < width; ++x) {
    const auto offset = static_cast<std::size_t>(xa[x]) * 3;
    std::int32_t* o = out + 3 * x;
#ifdef __SSE2__
    // p0 and the pixel after it from one 8-byte load, channels paired (p0, p1) for pmaddwd.
    // Where p1 is p0 itself its weight is 0, so the pixel after it may stand in; only loads
    // that would leave the readable bytes take the scalar path.
    if (offset + 8 <= row.readable) {
      const __m128i pixels =
          _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row.pixels + offset));
      const __m128i pairs =
          _mm_unpacklo_epi8(_mm_unpacklo_epi8(pixels, _mm_srli_si128(pixels, 3)), zero);
      const __m128i weights = _mm_set1_epi32((xw[x] << 16) | (kCoefOne - xw[x]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_madd_epi16(pairs, weights));
      continue;
    }
#endif
    const int w1 = xw[x];
    const int w0 = kCoefOne - w1;
    const std::uint8_t* p0 = row.pixels + offset;
    const std::uint8_t* p1 = row.pixels + static_cast<std::size_t>(xb[x]) * 3;
    o[0] = p0[0] * w0 + p1[0] * w1;
    o[1] = p0[1] * w0 + p1[1] * w1;
    o[2] = p0[2] * w0 + p1[2] * w1;
  }
}

void write_row(const std::uint8_t* row, std::size_t n, WindowWrite write, std::uint8_t* dst) {
  if (write == WindowWrite::replace) {
    std::memcpy(dst, row, n);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<std::uint8_t>((dst[i] + row[i]) >> 1);
}

// Output row from two horizontally resized rows (values scaled by 2^11), 11-bit weight wy1.
LIBREYOLO_VECTOR_CLONES void blend_rows(const std::int32_t* top, const std::int32_t* bottom,
                                        std::int32_t wy1, std::size_t n, std::uint8_t* out) {
  const std::int32_t wy0 = kCoefOne - wy1;
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = static_cast<std::uint8_t>((top[i] * wy0 + bottom[i] * wy1 + kRound) >>
                                       (2 * kCoefBits));
  }
}

}  // namespace

void resize_bilinear_window(const PaddedImage& src, int full_width, int full_height, bool mirror,
                            int x0, int y0, int width, int height, std::uint8_t* dst,
                            std::size_t dst_stride, WindowWrite write, ResizeScratch& scratch) {
  if (width <= 0 || height <= 0) return;
  const std::size_t n = static_cast<std::size_t>(width) * 3;
  if (!mirror && full_width == src.width && full_height == src.height) {
    for (int y = 0; y < height; ++y) {
      const SourceRow row = padded_row(src, y + y0, scratch.padded_row);
      write_row(row.pixels + static_cast<std::size_t>(x0) * 3, n, write,
                dst + static_cast<std::size_t>(y) * dst_stride);
    }
    return;
  }
  axis_table(src.width, full_width, mirror, x0, width, scratch.x_first, scratch.x_second,
             scratch.x_weight);
  axis_table(src.height, full_height, false, y0, height, scratch.y_first, scratch.y_second,
             scratch.y_weight);
  const std::int32_t* xa = scratch.x_first.data();
  const std::int32_t* xb = scratch.x_second.data();
  const std::int32_t* xw = scratch.x_weight.data();
  scratch.rows[0].resize(n + kRowSlack);
  scratch.rows[1].resize(n + kRowSlack);
  scratch.out_row.resize(n);
  int cached[2] = {-1, -1};  // the source row each buffer holds

  // Source row `sy` resized horizontally (values scaled by 2^11), computed only when neither
  // buffer holds it; the buffer holding `keep` is not overwritten.
  auto fetch = [&](int sy, int keep) -> const std::int32_t* {
    for (int slot = 0; slot < 2; ++slot) {
      if (cached[slot] == sy) return scratch.rows[slot].data();
    }
    const int slot = cached[0] == keep ? 1 : 0;
    resize_row(padded_row(src, sy, scratch.padded_row), xa, xb, xw, width,
               scratch.rows[slot].data());
    cached[slot] = sy;
    return scratch.rows[slot].data();
  };

  for (int y = 0; y < height; ++y) {
    const auto k = static_cast<std::size_t>(y);
    const std::int32_t* top = fetch(scratch.y_first[k], -1);
    const std::int32_t* bottom = fetch(scratch.y_second[k], scratch.y_first[k]);
    std::uint8_t* out = dst + k * dst_stride;
    if (write == WindowWrite::replace) {
      blend_rows(top, bottom, scratch.y_weight[k], n, out);
    } else {
      blend_rows(top, bottom, scratch.y_weight[k], n, scratch.out_row.data());
      write_row(scratch.out_row.data(), n, write, out);
    }
  }
}

}  // namespace libreyolo::core::data

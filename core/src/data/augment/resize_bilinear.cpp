#include "libreyolo/core/data/augment/resize_bilinear.hpp"

#include <cmath>
#include <cstddef>
#include <cstring>

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

}  // namespace

void resize_bilinear_window(ImageView src, int full_width, int full_height, bool mirror, int x0,
                            int y0, int width, int height, std::uint8_t* dst,
                            std::size_t dst_stride, ResizeScratch& scratch) {
  if (width <= 0 || height <= 0) return;
  const std::size_t src_row = static_cast<std::size_t>(src.width) * 3;
  if (!mirror && full_width == src.width && full_height == src.height) {
    for (int y = 0; y < height; ++y) {
      std::memcpy(dst + static_cast<std::size_t>(y) * dst_stride,
                  src.pixels + static_cast<std::size_t>(y + y0) * src_row +
                      static_cast<std::size_t>(x0) * 3,
                  static_cast<std::size_t>(width) * 3);
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
  const std::size_t n = static_cast<std::size_t>(width) * 3;
  scratch.rows[0].resize(n);
  scratch.rows[1].resize(n);
  int cached[2] = {-1, -1};  // the source row each buffer holds

  // Source row `sy` resized horizontally (values scaled by 2^11), computed only when neither
  // buffer holds it; the buffer holding `keep` is not overwritten.
  auto fetch = [&](int sy, int keep) -> const std::int32_t* {
    for (int slot = 0; slot < 2; ++slot) {
      if (cached[slot] == sy) return scratch.rows[slot].data();
    }
    const int slot = cached[0] == keep ? 1 : 0;
    const std::uint8_t* row = src.pixels + static_cast<std::size_t>(sy) * src_row;
    std::int32_t* out = scratch.rows[slot].data();
    for (int x = 0; x < width; ++x, out += 3) {
      const int w1 = xw[x];
      const int w0 = kCoefOne - w1;
      const std::uint8_t* p0 = row + xa[x] * 3;
      const std::uint8_t* p1 = row + xb[x] * 3;
      out[0] = p0[0] * w0 + p1[0] * w1;
      out[1] = p0[1] * w0 + p1[1] * w1;
      out[2] = p0[2] * w0 + p1[2] * w1;
    }
    cached[slot] = sy;
    return scratch.rows[slot].data();
  };

  for (int y = 0; y < height; ++y) {
    const auto k = static_cast<std::size_t>(y);
    const std::int32_t* top = fetch(scratch.y_first[k], -1);
    const std::int32_t* bottom = fetch(scratch.y_second[k], scratch.y_first[k]);
    const std::int32_t wy1 = scratch.y_weight[k];
    const std::int32_t wy0 = kCoefOne - wy1;
    std::uint8_t* out = dst + k * dst_stride;
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = static_cast<std::uint8_t>((top[i] * wy0 + bottom[i] * wy1 + kRound) >>
                                         (2 * kCoefBits));
    }
  }
}

}  // namespace libreyolo::core::data

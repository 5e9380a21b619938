#include "libreyolo/core/data/augment/interpolate_bilinear.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "libreyolo/core/data/augment/simd.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

// The expressions below keep torch's order of double operations, so the weights round alike.

double triangle(double x) {
  x = std::abs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

void size_axis(InterpolationAxis& axis, int out, int taps, std::vector<double>& weights) {
  axis.taps = taps;
  axis.first.resize(static_cast<std::size_t>(out));
  axis.count.resize(static_cast<std::size_t>(out));
  weights.assign(static_cast<std::size_t>(out) * taps, 0.0);
}

// torch's _compute_indices_min_size_weights_aa for every output index; returns the largest
// weight.
double antialias_weights(int in, int out, InterpolationAxis& axis, std::vector<double>& w) {
  const double scale = static_cast<double>(in) / out;
  const double support = scale >= 1.0 ? (2 * 0.5) * scale : 2 * 0.5;
  const int taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  size_axis(axis, out, taps, w);
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  double largest = 0.0;
  for (int i = 0; i < out; ++i) {
    const double center = scale * (i + 0.5);
    const std::int64_t first =
        std::max(static_cast<std::int64_t>(center - support + 0.5), std::int64_t{0});
    std::int64_t count =
        std::min(static_cast<std::int64_t>(center + support + 0.5), static_cast<std::int64_t>(in)) -
        first;
    count = std::clamp(count, std::int64_t{0}, static_cast<std::int64_t>(taps));
    double* wi = w.data() + static_cast<std::size_t>(i) * taps;
    double total = 0.0;
    for (std::int64_t j = 0; j < count; ++j) {
      wi[j] = triangle((static_cast<double>(j + first) - center + 0.5) * invscale);
      total += wi[j];
    }
    if (total != 0.0) {
      for (std::int64_t j = 0; j < count; ++j) {
        wi[j] /= total;
        largest = std::max(largest, wi[j]);
      }
    }
    axis.first[static_cast<std::size_t>(i)] = static_cast<int>(first);
    axis.count[static_cast<std::size_t>(i)] = static_cast<int>(count);
  }
  return largest;
}

// torch's _compute_indices_min_size_weights (uint8 input, antialias off); returns the largest
// weight.
double bilinear_weights(int in, int out, InterpolationAxis& axis, std::vector<double>& w) {
  const double scale = static_cast<double>(in) / out;
  constexpr int kTaps = 2;
  size_axis(axis, out, kTaps, w);
  double largest = 0.0;
  for (int i = 0; i < out; ++i) {
    const double unclamped = scale * (i + 0.5) - 0.5;  // area_pixel_compute_source_index
    const double real = unclamped < 0.0 ? 0.0 : unclamped;
    // guard_index_and_lambda floors through float (floorf), as torch does.
    const std::int64_t index = std::min(
        static_cast<std::int64_t>(std::floor(static_cast<float>(real))), std::int64_t{in} - 1);
    const double lambda = std::min(std::max(real - index, 0.0), 1.0);
    const std::int64_t first = std::max(index, std::int64_t{0});
    const std::int64_t count =
        std::clamp(std::min(index + 2, std::int64_t{in}) - first, std::int64_t{0}, std::int64_t{2});
    // Both filter taps; one that falls past the last pixel adds onto the last kept weight.
    double* wi = w.data() + static_cast<std::size_t>(i) * kTaps;
    std::int64_t slot = 0;
    for (std::int64_t j = 0; j < kTaps; ++j) {
      const double weight = triangle(static_cast<double>(j) - lambda);
      if (index + j <= 0) {
        slot = 0;
      } else if (index + j >= in - 1) {
        slot = count - 1;
      }
      wi[slot] += weight;
      largest = std::max(largest, wi[slot]);
      ++slot;
    }
    axis.first[static_cast<std::size_t>(i)] = static_cast<int>(first);
    axis.count[static_cast<std::size_t>(i)] = static_cast<int>(count);
  }
  return largest;
}

// torch's _compute_index_ranges_int16_weights: the precision, then round half away from zero.
void quantise(double largest, const std::vector<double>& w, InterpolationAxis& axis) {
  int precision = 0;
  for (; precision < 22; ++precision) {
    const int next = static_cast<int>(0.5 + largest * (1 << (precision + 1)));
    if (next >= (1 << 15)) break;
  }
  axis.precision = precision;
  axis.stride = axis.taps + (axis.taps & 1);
  const std::size_t outputs = axis.first.size();
  const auto taps = static_cast<std::size_t>(axis.taps),
             stride = static_cast<std::size_t>(axis.stride);
  axis.weights.assign(outputs * stride, 0);
  int worst = 0;  // the largest |sum of an output's weights - 2^p|
  for (std::size_t i = 0; i < outputs; ++i) {
    int sum = 0;
    for (std::size_t k = 0; k < taps; ++k) {
      const double v = w[i * taps + k] * (1 << precision);
      const int rounded = v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v);
      axis.weights[i * stride + k] = static_cast<std::int16_t>(rounded);
      sum += rounded;
    }
    worst = std::max(worst, std::abs(sum - (1 << precision)));
  }
  // Then (f * sum + 2^(p-1)) >> p is f for every f <= 255.
  axis.flat_stays_flat = 255 * worst < (1 << (precision - 1));
}

inline std::uint8_t to_byte(std::int32_t sum, int precision) {
  return static_cast<std::uint8_t>(std::clamp(sum >> precision, 0, 255));
}

// A source row and how many bytes may be read from its start (to the end of the image): the
// vector loads below read two bytes past the pair of pixels they use.
struct SourceRow {
  const std::uint8_t* pixels = nullptr;
  std::size_t readable = 0;
};

// One output pixel's sums, tap by tap.
inline void add_taps(const std::uint8_t* p, const std::int16_t* w, int n, std::int32_t* sums) {
  std::int32_t r = sums[0], g = sums[1], b = sums[2];
  for (int k = 0; k < n; ++k, p += 3) {
    r += w[k] * p[0];
    g += w[k] * p[1];
    b += w[k] * p[2];
  }
  sums[0] = r;
  sums[1] = g;
  sums[2] = b;
}

// The width pass on one row, into 3 * out_width sums (plus one spare) that start at 2^(p-1).
// With SSE2, two taps per multiply-add: a pixel pair's channels interleaved (r0 r1 g0 g1 b0 b1)
// against the weight pair (w0 w1), zero-padded to an even count; the sums are the same
// integers. Its fourth lane spills into the next pixel's first sum, written right after.
void resample_row(SourceRow row, const InterpolationAxis& axis, int out_width, std::int32_t* sums) {
  const std::int32_t half = 1 << (axis.precision - 1);
#ifdef __SSE2__
  const __m128i zero = _mm_setzero_si128();
  const __m128i start = _mm_set1_epi32(half);
#endif
  for (int x = 0; x < out_width; ++x) {
    const auto xs = static_cast<std::size_t>(x);
    const std::int16_t* w = axis.weights.data() + xs * axis.stride;
    const std::size_t offset = static_cast<std::size_t>(axis.first[xs]) * 3;
    const std::uint8_t* p = row.pixels + offset;
    const int n = axis.count[xs];
    std::int32_t* out = sums + 3 * xs;
#ifdef __SSE2__
    // The pair loads read up to 3 n + 5 bytes; the image's last pixels take the plain loop.
    if (offset + 3 * static_cast<std::size_t>(n) + 5 <= row.readable) {
      __m128i acc = start;
      for (int k = 0; k < n; k += 2) {
        const __m128i pixels = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 3 * k));
        const __m128i pairs =
            _mm_unpacklo_epi8(_mm_unpacklo_epi8(pixels, _mm_srli_si128(pixels, 3)), zero);
        std::int32_t both;
        std::memcpy(&both, w + k, sizeof both);
        acc = _mm_add_epi32(acc, _mm_madd_epi16(pairs, _mm_set1_epi32(both)));
      }
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), acc);
      continue;
    }
#endif
    out[0] = out[1] = out[2] = half;
    add_taps(p, w, n, out);
  }
}

// The height pass, one source row at a time into the sums, and the sums to bytes. Blocks of a
// fixed 64 values: GCC's -O2 cost model vectorises only loops that need no scalar remainder.
constexpr std::size_t kBlock = 64;

LIBREYOLO_VECTOR_CLONES void accumulate_row(std::int32_t* __restrict sums,
                                            const std::uint8_t* __restrict row, std::int32_t weight,
                                            std::size_t n) {
  std::size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (std::size_t j = 0; j < kBlock; ++j) sums[i + j] += weight * row[i + j];
  }
  for (; i < n; ++i) sums[i] += weight * row[i];
}

LIBREYOLO_VECTOR_CLONES void finish_row(const std::int32_t* __restrict sums, int precision,
                                        std::size_t n, std::uint8_t* __restrict out) {
  std::size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (std::size_t j = 0; j < kBlock; ++j) out[i + j] = to_byte(sums[i + j], precision);
  }
  for (; i < n; ++i) out[i] = to_byte(sums[i], precision);
}

SourceRow source_row(ImageView image, int y) {
  const std::size_t row_bytes = static_cast<std::size_t>(image.width) * 3;
  return {image.pixels + static_cast<std::size_t>(y) * row_bytes,
          static_cast<std::size_t>(image.height - y) * row_bytes};
}

}  // namespace

void interpolation_axis(int in, int out, bool antialias, InterpolationAxis& axis,
                        std::vector<double>& float_weights) {
  const double largest = antialias ? antialias_weights(in, out, axis, float_weights)
                                   : bilinear_weights(in, out, axis, float_weights);
  quantise(largest, float_weights, axis);
}

namespace {

// One colour all along: zoom-out canvases are mostly such rows.
bool flat_row(const std::uint8_t* row, std::size_t bytes) {
  return bytes <= 3 || std::memcmp(row, row + 3, bytes - 3) == 0;
}

// The width pass of source row y into `out` (dst_width pixels). A flat row gives the same
// flat row, exactly, when the axis says so (see InterpolationAxis::flat_stays_flat).
void width_pass(ImageView src, int y, const InterpolationAxis& axis, int dst_width,
                std::vector<std::int32_t>& sums, std::uint8_t* out) {
  const std::size_t n = static_cast<std::size_t>(dst_width) * 3;
  const std::uint8_t* row = src.pixels + static_cast<std::size_t>(y) * src.width * 3;
  if (axis.flat_stays_flat && flat_row(row, static_cast<std::size_t>(src.width) * 3)) {
    for (std::size_t i = 0; i < n; i += 3) std::memcpy(out + i, row, 3);
    return;
  }
  sums.resize(n + 1);  // the vector store's spare lane
  resample_row(source_row(src, y), axis, dst_width, sums.data());
  finish_row(sums.data(), axis.precision, n, out);
}

// The height pass: output row y from the rows `row(r)` returns.
template <class Rows>
void height_pass(const InterpolationAxis& axis, int y, Rows row, std::size_t n,
                 std::vector<std::int32_t>& sums, std::uint8_t* out) {
  sums.assign(n, 1 << (axis.precision - 1));
  const auto ys = static_cast<std::size_t>(y);
  const std::int16_t* w = axis.weights.data() + ys * axis.stride;
  const int first = axis.first[ys];
  for (int k = 0; k < axis.count[ys]; ++k) accumulate_row(sums.data(), row(first + k), w[k], n);
  finish_row(sums.data(), axis.precision, n, out);
}

}  // namespace

void interpolate_bilinear(ImageView src, MutableImageView dst, bool antialias,
                          InterpolateScratch& scratch) {
  if (src.width <= 0 || src.height <= 0 || dst.width <= 0 || dst.height <= 0) {
    throw Error("cannot resize a " + std::to_string(src.width) + "x" + std::to_string(src.height) +
                    " image to " + std::to_string(dst.width) + "x" + std::to_string(dst.height),
                "both sizes must be positive", "check the image and the target size");
  }
  const std::size_t in_row = static_cast<std::size_t>(src.width) * 3;
  const std::size_t out_row = static_cast<std::size_t>(dst.width) * 3;
  const bool horizontal = src.width != dst.width;
  const bool vertical = src.height != dst.height;
  auto dst_row = [&](int y) { return dst.pixels + static_cast<std::size_t>(y) * out_row; };
  if (!horizontal && !vertical) {
    std::memcpy(dst.pixels, src.pixels, out_row * static_cast<std::size_t>(dst.height));
    return;
  }
  InterpolationAxis& xa = scratch.x;
  InterpolationAxis& ya = scratch.y;
  if (horizontal) interpolation_axis(src.width, dst.width, antialias, xa, scratch.float_weights);
  if (!vertical) {
    for (int y = 0; y < dst.height; ++y) {
      width_pass(src, y, xa, dst.width, scratch.sums, dst_row(y));
    }
    return;
  }
  interpolation_axis(src.height, dst.height, antialias, ya, scratch.float_weights);
  if (!horizontal) {
    auto source = [&](int r) { return src.pixels + static_cast<std::size_t>(r) * in_row; };
    for (int y = 0; y < dst.height; ++y) {
      height_pass(ya, y, source, out_row, scratch.sums, dst_row(y));
    }
    return;
  }
  // Width-resampled rows live in a ring of `taps` rows: each output row reads a window of
  // consecutive source rows, and the windows only move down, so each row is resampled once.
  scratch.rows.resize(static_cast<std::size_t>(ya.taps) * out_row);
  auto ring = [&](int r) {
    return scratch.rows.data() + static_cast<std::size_t>(r % ya.taps) * out_row;
  };
  int next_row = 0;  // the first source row not resampled yet
  for (int y = 0; y < dst.height; ++y) {
    const int first = ya.first[static_cast<std::size_t>(y)];
    const int end = first + ya.count[static_cast<std::size_t>(y)];
    for (int r = std::max(next_row, first); r < end; ++r) {
      width_pass(src, r, xa, dst.width, scratch.sums, ring(r));
    }
    next_row = std::max(next_row, end);
    height_pass(ya, y, ring, out_row, scratch.sums, dst_row(y));
  }
}

}  // namespace libreyolo::core::data

#include "libreyolo/core/data/augment/hsv.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "libreyolo/core/data/augment/random.hpp"
#include "libreyolo/core/data/augment/simd.hpp"

namespace libreyolo::core::data {
namespace {

// OpenCV's 8-bit conversions (its reciprocal tables, rounded fixed-point products and integer
// divisions) without table lookups, branches or non-constant 32-bit integer multiplies, so that
// the per-pixel loop vectorises (no vector gathers; SSE2 has no 32-bit multiply): products and
// divisions are float, on whole numbers. Each float step gives OpenCV's integer result for
// every input it can receive (the products are exact or far enough from a rounding boundary;
// checked value by value), and the all-colours unit test pins the whole conversion.

inline int floor_positive(float x) { return static_cast<int>(x); }

// OpenCV's round(255 * 2^12 / v); v = 0 comes with diff = 0, where any value works.
inline float saturation_reciprocal(int v) {
  return static_cast<float>(floor_positive(1044480.0f / static_cast<float>(v > 1 ? v : 1) + 0.5f));
}

// OpenCV's round(30 * 2^12 / diff) (30 half-degrees per 60-degree sector); diff = 0 comes with
// a zero numerator.
inline float hue_reciprocal(int diff) {
  return static_cast<float>(
      floor_positive(122880.0f / static_cast<float>(diff > 1 ? diff : 1) + 0.5f));
}

constexpr float kInvFixedOne = 1.0f / 4096.0f;  // OpenCV's 12 fractional bits

// `a` where `condition` holds, else `b`, by masking: nested ternaries here become branches that
// keep GCC from vectorising the pixel loop.
inline int pick(bool condition, int a, int b) {
  const int mask = -static_cast<int>(condition);
  return (a & mask) | (b & ~mask);
}

struct HsvInts {
  int h = 0, s = 0, v = 0;  // h in 0..179
};

// Always inlined: at -O2 GCC would otherwise call them, and a call stops vectorisation.
[[gnu::always_inline]] inline HsvInts to_hsv(int r, int g, int b) {
  const int v = std::max(r, std::max(g, b));
  const int diff = v - std::min(r, std::min(g, b));
  const int s = floor_positive(static_cast<float>(diff) * saturation_reciprocal(v) * kInvFixedOne +
                               0.5f);
  // Position inside the hexagon in units of `diff`: red sector around 0, green 2, blue 4.
  const int numerator = pick(v == r, g - b, pick(v == g, b - r + 2 * diff, r - g + 4 * diff));
  // Hue is at least -30 before it wraps: shifted by 180 it floors by truncation.
  int h = floor_positive(static_cast<float>(numerator) * hue_reciprocal(diff) * kInvFixedOne +
                         180.5f);
  h -= h >= 180 ? 180 : 0;
  return {h, s, v};
}

// HSV -> RGB. With sector k = h / 30 and offset f = h % 30 (of 30), V and S in 0..255, the
// three channel values are V, p = V (1 - S) and x = V (1 - S g / 30) with g = f in odd sectors
// (OpenCV's q) and 30 - f in even ones (its t); the sector decides which channel gets which.
struct RgbInts {
  int r = 0, g = 0, b = 0;
};

[[gnu::always_inline]] inline RgbInts to_rgb(int h, int s, int v) {
  const int sector = floor_positive((static_cast<float>(h) + 0.5f) * (1.0f / 30.0f));
  const int f = h - 30 * sector;
  const int g = pick((sector & 1) != 0, f, 30 - f);
  const float fv = static_cast<float>(v);
  // x = round(V (7650 - S g) / 7650) = V - floor((V S g + 3824) / 7650), p = round(V (255 - S)
  // / 255); the half added before each division keeps exact multiples from flooring low.
  const int x = v - floor_positive((fv * static_cast<float>(s) * static_cast<float>(g) + 3824.5f) *
                                   (1.0f / 7650.0f));
  const int p = floor_positive((fv * static_cast<float>(255 - s) + 127.5f) * (1.0f / 255.0f));
  // Which of (V, x, p) each channel gets, by sector: R = V x p p x V, G = x V V x p p,
  // B = p p x V V x.
  RgbInts out;
  out.r = pick((sector == 0) | (sector == 5), v, pick((sector == 1) | (sector == 4), x, p));
  out.g = pick((sector == 1) | (sector == 2), v, pick((sector == 0) | (sector == 3), x, p));
  out.b = pick((sector == 3) | (sector == 4), v, pick((sector == 2) | (sector == 5), x, p));
  return out;
}

// A delta with the hue turned into a shift in 0..179.
struct HsvShift {
  int h = 0, s = 0, v = 0;
};

// Pixels per pass: the channels are split into planes so the arithmetic runs on whole vectors.
constexpr int kBlock = 64;

struct Planes {
  std::int32_t r[kBlock], g[kBlock], b[kBlock];
};

// A fixed trip count keeps the loop vectorised at -O2 as well (GCC's cheap cost model there
// refuses loops that need a scalar remainder).
[[gnu::always_inline]] inline void jitter_planes(Planes& planes, const HsvShift& d) {
  for (int i = 0; i < kBlock; ++i) {
    const HsvInts hsv = to_hsv(planes.r[i], planes.g[i], planes.b[i]);
    int h = hsv.h + d.h;
    h -= h >= 180 ? 180 : 0;
    const RgbInts rgb = to_rgb(h, std::min(std::max(hsv.s + d.s, 0), 255),
                               std::min(std::max(hsv.v + d.v, 0), 255));
    planes.r[i] = rgb.r;
    planes.g[i] = rgb.g;
    planes.b[i] = rgb.b;
  }
}

// With AVX2 the moves between pixels and planes vectorise too (byte shuffles).
LIBREYOLO_VECTOR_CLONES void jitter_run(std::uint8_t* p, int n, const HsvShift& d, Planes& planes) {
  for (int i = 0; i < n; ++i) {
    planes.r[i] = p[3 * i];
    planes.g[i] = p[3 * i + 1];
    planes.b[i] = p[3 * i + 2];
  }
  jitter_planes(planes, d);
  for (int i = 0; i < n; ++i) {
    p[3 * i] = static_cast<std::uint8_t>(planes.r[i]);
    p[3 * i + 1] = static_cast<std::uint8_t>(planes.g[i]);
    p[3 * i + 2] = static_cast<std::uint8_t>(planes.b[i]);
  }
}

int draw_delta(std::mt19937_64& rng, float gain) {
  const double value = uniform(rng, -1.0, 1.0) * gain;
  const bool keep = chance(rng, 0.5);
  return keep ? static_cast<int>(value) : 0;  // truncation toward zero
}

}  // namespace

HsvDelta random_hsv_delta(const HsvGains& gains, std::mt19937_64& rng) {
  HsvDelta d;
  d.h = draw_delta(rng, gains.h);
  d.s = draw_delta(rng, gains.s);
  d.v = draw_delta(rng, gains.v);
  return d;
}

Hsv8 rgb_to_hsv8(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  const HsvInts hsv = to_hsv(r, g, b);
  return {static_cast<std::uint8_t>(hsv.h), static_cast<std::uint8_t>(hsv.s),
          static_cast<std::uint8_t>(hsv.v)};
}

void hsv8_to_rgb(Hsv8 hsv, std::uint8_t rgb[3]) {
  const RgbInts out = to_rgb(std::min<int>(hsv.h, 179), hsv.s, hsv.v);
  rgb[0] = static_cast<std::uint8_t>(out.r);
  rgb[1] = static_cast<std::uint8_t>(out.g);
  rgb[2] = static_cast<std::uint8_t>(out.b);
}

void apply_hsv(MutableImageView image, int content_width, int content_height, HsvDelta delta) {
  if (delta.identity()) return;
  const HsvShift shift{((delta.h % 180) + 180) % 180, delta.s, delta.v};
  const int w = std::min(content_width, image.width);
  const int h = std::min(content_height, image.height);
  Planes planes{};  // a short last run leaves the rest of the block to stale, defined values
  for (int y = 0; y < h; ++y) {
    std::uint8_t* row = image.pixels + static_cast<std::ptrdiff_t>(y) * image.width * 3;
    for (int x = 0; x < w; x += kBlock) {
      jitter_run(row + static_cast<std::ptrdiff_t>(x) * 3, std::min(kBlock, w - x), shift,
                 planes);
    }
  }
}

}  // namespace libreyolo::core::data

// shift_hue (declared in color_adjust.hpp): torchvision's adjust_hue for uint8 images, the one
// colour kernel that needs float work per pixel. It follows torchvision's _rgb_to_hsv and
// _hsv_to_rgb operation for operation in float32 (the same roundings, in the same order), on
// planes of 64 pixels so that the compiler vectorises it.
//
// Built with -ffp-contract=off (core/CMakeLists.txt): no multiply may fuse with an add here.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "libreyolo/core/data/augment/color_adjust.hpp"
#include "libreyolo/core/data/augment/simd.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

// The scalars torchvision's kernels receive, as float32.
const float kSixth = static_cast<float>(1.0 / 6.0);
const float kToUnit = static_cast<float>(1.0 / 255.0);         // to_dtype(uint8 -> float32)
const float kToByte = static_cast<float>(255.0 + 1.0 - 1e-3);  // to_dtype(float32 -> uint8)

constexpr int kBlock = 64;

// Pixels as planes, plus the per-pixel quantities the three passes of shift_planes hand on.
struct Planes {
  float r[kBlock], g[kBlock], b[kBlock];
  float value[kBlock], range[kBlock];        // max and max - min of the pixel
  float s_divisor[kBlock], divisor[kBlock];  // max and range, 1 for a grey pixel
  float saturation[kBlock], rc[kBlock], gc[kBlock], bc[kBlock];
};

// `a` where `condition` holds, else `b`, by bit masks. Written as a ?: GCC turns the selects
// of these loops into branches (it sinks arithmetic and loads into the arms, then cannot
// if-convert them), and the loops stay scalar.
inline float pick(bool condition, float a, float b) {
  std::uint32_t bits_a, bits_b;
  std::memcpy(&bits_a, &a, 4);
  std::memcpy(&bits_b, &b, 4);
  const std::uint32_t mask = 0u - static_cast<std::uint32_t>(condition);
  const std::uint32_t bits = (bits_a & mask) | (bits_b & ~mask);
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}
inline float larger(float a, float b) { return pick(a < b, b, a); }
inline float smaller(float a, float b) { return pick(b < a, b, a); }
inline float clamp_unit(float v) { return smaller(larger(v, 0.0f), 1.0f); }

// The selects of torchvision's _rgb_to_hsv, then its divisions.
[[gnu::always_inline]] inline void hsv_operands(Planes& p) {
  for (int i = 0; i < kBlock; ++i) {
    const float maxc = larger(p.r[i], larger(p.g[i], p.b[i]));
    const float minc = smaller(p.r[i], smaller(p.g[i], p.b[i]));
    const bool flat = maxc == minc;
    p.value[i] = maxc;
    p.range[i] = maxc - minc;
    p.s_divisor[i] = pick(flat, 1.0f, maxc);
    p.divisor[i] = pick(flat, 1.0f, p.range[i]);
  }
}

[[gnu::always_inline]] inline void hsv_divisions(Planes& p) {
  for (int i = 0; i < kBlock; ++i) {
    p.saturation[i] = p.range[i] / p.s_divisor[i];
    p.rc[i] = (p.value[i] - p.r[i]) / p.divisor[i];
    p.gc[i] = (p.value[i] - p.g[i]) / p.divisor[i];
    p.bc[i] = (p.value[i] - p.b[i]) / p.divisor[i];
  }
}

// The hue in [0, 1) from rc, gc, bc. torchvision's three masked candidates are exclusive, so
// picking one equals their masked sum.
[[gnu::always_inline]] inline float hue_of(const Planes& p, int i) {
  const float from_red = p.bc[i] - p.gc[i];
  const float from_green = (p.rc[i] + 2.0f) - p.bc[i];
  const float from_blue = (p.gc[i] + 4.0f) - p.rc[i];
  const float maxc = p.value[i];
  const float sixths = pick(maxc == p.r[i], from_red, pick(maxc == p.g[i], from_green, from_blue));
  // Two statements, two roundings (clang's default contracts within one expression).
  const float scaled = sixths * kSixth;
  const float h = scaled + 1.0f;
  return pick(h >= 1.0f, h - 1.0f, h);  // fmod(h, 1) for h in [5/6, 11/6], exact
}

// Python-style (h + shift) mod 1 for a sum in (-0.5, 1.5): torch's remainder_(1.0).
[[gnu::always_inline]] inline float wrap_unit(float sum) {
  return pick(sum < 0.0f, sum + 1.0f, pick(sum >= 1.0f, sum - 1.0f, sum));
}

// torchvision's _hsv_to_rgb then to_dtype(uint8): v, p, q, t placed by sector, times 255.999
// (the caller truncates; the products are in [0, 255.999]).
[[gnu::always_inline]] inline void to_rgb(float hue, float s, float v, float& r, float& g,
                                          float& b) {
  const float h6 = hue * 6.0f;
  const float floor_h6 = static_cast<float>(static_cast<int>(h6));  // h6 >= 0
  const float f = h6 - floor_h6;
  const float sector = pick(floor_h6 == 6.0f, 0.0f, floor_h6);  // remainder_(6)
  const float sf = s * f;
  const float one_minus_s = 1.0f - s;
  const float q = clamp_unit((1.0f - sf) * v);
  const float t = clamp_unit((sf + one_minus_s) * v);
  const float p = clamp_unit(one_minus_s * v);
  // R is v q p p t v over sectors 0..5, G t v v q p p, B p p t v v q.
  const float red = pick((sector == 0.0f) | (sector == 5.0f), v,
                         pick(sector == 1.0f, q, pick(sector == 4.0f, t, p)));
  const float green = pick((sector == 1.0f) | (sector == 2.0f), v,
                           pick(sector == 0.0f, t, pick(sector == 3.0f, q, p)));
  const float blue = pick((sector == 3.0f) | (sector == 4.0f), v,
                          pick(sector == 2.0f, t, pick(sector == 5.0f, q, p)));
  r = red * kToByte;
  g = green * kToByte;
  b = blue * kToByte;
}

// Fixed trip counts keep the loops vectorised at -O2 too (as in hsv.cpp).
LIBREYOLO_VECTOR_CLONES void shift_planes(Planes& p, float shift) {
  hsv_operands(p);
  hsv_divisions(p);
  for (int i = 0; i < kBlock; ++i) {
    const float hue = wrap_unit(hue_of(p, i) + shift);
    to_rgb(hue, p.saturation[i], p.value[i], p.r[i], p.g[i], p.b[i]);
  }
}

void shift_run(std::uint8_t* p, int n, float shift, const float* unit, Planes& planes) {
  for (int i = 0; i < n; ++i) {
    planes.r[i] = unit[p[3 * i]];
    planes.g[i] = unit[p[3 * i + 1]];
    planes.b[i] = unit[p[3 * i + 2]];
  }
  shift_planes(planes, shift);
  for (int i = 0; i < n; ++i) {
    p[3 * i] = static_cast<std::uint8_t>(static_cast<int>(planes.r[i]));
    p[3 * i + 1] = static_cast<std::uint8_t>(static_cast<int>(planes.g[i]));
    p[3 * i + 2] = static_cast<std::uint8_t>(static_cast<int>(planes.b[i]));
  }
}

}  // namespace

void shift_hue(MutableImageView image, float factor, const ChannelMap& through) {
  if (!(factor >= -0.5f && factor <= 0.5f)) {
    throw Error("cannot shift the hue by " + std::to_string(factor),
                "torchvision's adjust_hue takes a factor in [-0.5, 0.5]",
                "keep the hue range inside [-0.5, 0.5]");
  }
  // Channel value -> float32 in [0, 1] as torchvision's to_dtype makes it, after `through`.
  float unit[256];
  for (int v = 0; v < 256; ++v) {
    unit[v] = static_cast<float>(through(static_cast<std::uint8_t>(v))) * kToUnit;
  }
  Planes planes{};  // a short last run leaves the rest of the block to stale, defined values
  const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
  for (std::size_t i = 0; i < n; i += kBlock) {
    const int count = static_cast<int>(std::min<std::size_t>(kBlock, n - i));
    shift_run(image.pixels + 3 * i, count, factor, unit, planes);
  }
}

}  // namespace libreyolo::core::data

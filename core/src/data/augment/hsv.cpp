#include "libreyolo/core/data/augment/hsv.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "libreyolo/core/data/augment/random.hpp"

namespace libreyolo::core::data {
namespace {

constexpr int kShift = 12;

// Reciprocals in 20.12 fixed point, so RGB -> HSV needs no division per pixel:
// saturation[v] = 255 / v and hue[diff] = 30 / diff (30 half-degrees per 60-degree sector).
struct Reciprocals {
  int saturation[256];
  int hue[256];
  Reciprocals() {
    saturation[0] = hue[0] = 0;
    for (int i = 1; i < 256; ++i) {
      saturation[i] = static_cast<int>(std::lround((255.0 * (1 << kShift)) / i));
      hue[i] = static_cast<int>(std::lround((30.0 * (1 << kShift)) / i));
    }
  }
};

const Reciprocals& reciprocals() {
  static const Reciprocals table;
  return table;
}

inline Hsv8 to_hsv(int r, int g, int b, const Reciprocals& rc) {
  const int v = std::max(r, std::max(g, b));
  const int diff = v - std::min(r, std::min(g, b));
  const int s = (diff * rc.saturation[v] + (1 << (kShift - 1))) >> kShift;
  // Position inside the hexagon in units of `diff`: red sector around 0, green 2, blue 4.
  // Selects rather than branches: which channel is largest is unpredictable per pixel.
  const int from_g = b - r + 2 * diff;
  const int from_b = r - g + 4 * diff;
  const int numerator = v == r ? g - b : (v == g ? from_g : from_b);
  int h = (numerator * rc.hue[diff] + (1 << (kShift - 1))) >> kShift;
  h += h < 0 ? 180 : 0;
  h -= h >= 180 ? 180 : 0;
  return {static_cast<std::uint8_t>(h), static_cast<std::uint8_t>(s),
          static_cast<std::uint8_t>(v)};
}

// HSV -> RGB. With sector k = h / 30 and offset f = h % 30 (of 30), V and S in 0..255, the
// three channel values are V, p = V (1 - S) and x = V (1 - S g / 30) with g = f in odd sectors
// (OpenCV's q) and 30 - f in even ones (its t); the sector decides which channel gets which.
struct HueSector {
  std::uint8_t g = 0;      // see above, 0..30
  std::uint8_t order = 0;  // index into kOrder
};

// For each sector, which of (V, x, p) goes to R, G and B.
constexpr std::uint8_t kOrder[6][3] = {{0, 1, 2}, {1, 0, 2}, {2, 0, 1},
                                       {2, 1, 0}, {1, 2, 0}, {0, 2, 1}};

inline HueSector hue_sector(int h) {
  const int sector = h / 30;
  const int f = h - sector * 30;
  return {static_cast<std::uint8_t>(sector & 1 ? f : 30 - f), static_cast<std::uint8_t>(sector)};
}

inline void to_rgb(HueSector hs, int s, int v, std::uint8_t* out) {
  constexpr int kDen = 255 * 30;
  int value[3];
  value[0] = v;
  value[1] = (v * (kDen - s * hs.g) + kDen / 2) / kDen;
  value[2] = (v * (255 - s) + 127) / 255;
  const std::uint8_t* order = kOrder[hs.order];
  out[0] = static_cast<std::uint8_t>(value[order[0]]);
  out[1] = static_cast<std::uint8_t>(value[order[1]]);
  out[2] = static_cast<std::uint8_t>(value[order[2]]);
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
  return to_hsv(r, g, b, reciprocals());
}

void hsv8_to_rgb(Hsv8 hsv, std::uint8_t rgb[3]) {
  to_rgb(hue_sector(std::min<int>(hsv.h, 179)), hsv.s, hsv.v, rgb);
}

void apply_hsv(MutableImageView image, int content_width, int content_height, HsvDelta delta) {
  if (delta.identity()) return;
  // The per-sample lookup tables: hue wraps modulo 180 (and goes straight to its sector),
  // saturation and value clamp.
  HueSector lut_h[256];
  std::uint8_t lut_s[256], lut_v[256];
  const int dh = ((delta.h % 180) + 180) % 180;
  for (int i = 0; i < 256; ++i) {
    lut_h[i] = hue_sector((std::min(i, 179) + dh) % 180);
    lut_s[i] = static_cast<std::uint8_t>(std::clamp(i + delta.s, 0, 255));
    lut_v[i] = static_cast<std::uint8_t>(std::clamp(i + delta.v, 0, 255));
  }
  const Reciprocals& rc = reciprocals();
  const int w = std::min(content_width, image.width);
  const int h = std::min(content_height, image.height);
  for (int y = 0; y < h; ++y) {
    std::uint8_t* p = image.pixels + static_cast<std::ptrdiff_t>(y) * image.width * 3;
    // Neighbouring pixels are often equal (padding, flat regions): reuse the last result.
    int last_in = -1;
    std::uint8_t last_out[3] = {0, 0, 0};
    for (int x = 0; x < w; ++x, p += 3) {
      const int key = (p[0] << 16) | (p[1] << 8) | p[2];
      if (key == last_in) {
        p[0] = last_out[0];
        p[1] = last_out[1];
        p[2] = last_out[2];
        continue;
      }
      last_in = key;
      const Hsv8 hsv = to_hsv(p[0], p[1], p[2], rc);
      to_rgb(lut_h[hsv.h], lut_s[hsv.s], lut_v[hsv.v], p);
      last_out[0] = p[0];
      last_out[1] = p[1];
      last_out[2] = p[2];
    }
  }
}

}  // namespace libreyolo::core::data

#pragma once
// HSV colour jitter on uint8 RGB, the way YOLOX / LibreYOLO do it: integer deltas added to
// OpenCV's 8-bit HSV (H in 0..179, half degrees, wrapping; S and V in 0..255, clamped).
//
// Per sample, three 256-entry lookup tables hold the channel mappings; per pixel, an integer
// RGB -> HSV (reciprocal tables instead of divisions, like OpenCV's 8-bit path), the tables,
// and an integer HSV -> RGB. No floats per pixel.

#include <cstdint>
#include <random>

#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

// Maximum |delta| per channel (YOLOX: hgain 5, sgain 30, vgain 30).
struct HsvGains {
  float h = 5.0f;
  float s = 30.0f;
  float v = 30.0f;
};

struct HsvDelta {
  int h = 0, s = 0, v = 0;
  bool identity() const { return h % 180 == 0 && s == 0 && v == 0; }
};

// YOLOX's draw: delta = U(-1, 1) * gain, zeroed with probability 1/2 per channel, truncated
// toward zero (numpy's astype(int16)). So |dh| <= 4, |ds|, |dv| <= 29 with the default gains,
// and one sample in eight is left unchanged.
HsvDelta random_hsv_delta(const HsvGains& gains, std::mt19937_64& rng);

struct Hsv8 {
  std::uint8_t h = 0, s = 0, v = 0;  // h in 0..179
};

// OpenCV's COLOR_RGB2HSV for 8-bit images (H = degrees / 2, rounded).
Hsv8 rgb_to_hsv8(std::uint8_t r, std::uint8_t g, std::uint8_t b);
// OpenCV's COLOR_HSV2RGB for 8-bit images, in integer arithmetic (rounded).
void hsv8_to_rgb(Hsv8 hsv, std::uint8_t rgb[3]);

// Adds `delta` to every pixel in columns [0, content_width) and rows [0, content_height) of
// `image`, in place. A zero delta leaves the pixels untouched (YOLOX would still round-trip
// through 8-bit HSV, which is lossy: we skip it).
void apply_hsv(MutableImageView image, int content_width, int content_height, HsvDelta delta);

inline void apply_hsv(MutableImageView image, HsvDelta delta) {
  apply_hsv(image, image.width, image.height, delta);
}

}  // namespace libreyolo::core::data

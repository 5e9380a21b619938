#pragma once
// torchvision.transforms.v2.functional's colour kernels for uint8 images (adjust_brightness,
// adjust_contrast, adjust_saturation, adjust_hue, permute_channels), byte for byte as they run
// on a uint8 CPU tensor, without their float images.
//
// What torchvision computes, per value x of a channel (all float32, each step rounded):
//   brightness  trunc(min(x * f, 255))
//   contrast    trunc(clamp(fma(mean, 1 - f, x * f), 0, 255)), mean = the mean of the floored
//               grayscale image (floor(0.2989 r + 0.587 g + 0.114 b), itself two fmas)
//   saturation  trunc(clamp(fma(gray, 1 - f, x * f), 0, 255)), gray = that pixel's floored gray
//   hue         x / 255 -> HSV (Pillow's formulas) -> hue + f modulo 1 -> RGB -> trunc(255.999 v)
// The fused multiply-adds are those of torch's vectorised `add_(other, alpha)`.
//
// How we get the same bytes cheaply: brightness and contrast only depend on x, so they are
// 256-entry tables; saturation depends on (gray, x), a 256 x 256 table built once per call;
// the floored gray comes from exact integer sums, with the float chain only for the rare
// sums within 2^-15 of an integer (where the chain's rounding could decide the floor). Only
// hue needs float work per pixel; it runs on blocks of 64 pixels the compiler vectorises.

#include <array>
#include <cstdint>
#include <vector>

#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

// A map of channel values, the same for R, G and B; the identity unless set. `identity` lets
// a pass skip the lookups.
struct ChannelMap {
  std::array<std::uint8_t, 256> values;
  bool identity = true;

  ChannelMap();
  static ChannelMap none() { return {}; }
  // `outer` after `inner`.
  static ChannelMap compose(const ChannelMap& outer, const ChannelMap& inner);
  std::uint8_t operator()(std::uint8_t x) const { return values[x]; }
};

// Output channel c takes input channel order[c] (torchvision's permute_channels argument).
using ChannelOrder = std::array<std::uint8_t, 3>;

// torchvision's uint8 grayscale as adjust_contrast / adjust_saturation use it: floor of
// 0.2989 r + 0.587 g + 0.114 b in float32 (r * 0.2989, then two fused multiply-adds).
std::uint8_t floored_gray(std::uint8_t r, std::uint8_t g, std::uint8_t b);
// The same float chain written out step by step, for tests of floored_gray's shortcut.
std::uint8_t floored_gray_reference(std::uint8_t r, std::uint8_t g, std::uint8_t b);

ChannelMap brightness_map(float factor);
// Blend with a constant `mean` (adjust_contrast's second step).
ChannelMap contrast_map(float mean, float factor);

// Mean of the floored gray of `through(image)`, as float32 (sum / pixel count).
float gray_mean(ImageView image, const ChannelMap& through);

// Reused between calls: the saturation table, 256 x 256 bytes.
struct ColorScratch {
  std::vector<std::uint8_t> saturation_table;
};

// These read every value through `through` first (to fuse a pending brightness / contrast
// table into the pass) and write the result in place.
void saturate(MutableImageView image, float factor, const ChannelMap& through,
              ColorScratch& scratch);
void shift_hue(MutableImageView image, float factor, const ChannelMap& through);
// out[c] = map(in[order[c]]).
void remap(MutableImageView image, const ChannelMap& map, const ChannelOrder& order);

// The torchvision kernels one at a time, in place. Factors are float32 as torchvision passes
// them to its kernels; throw libreyolo::core::Error for a negative factor or a hue factor
// outside [-0.5, 0.5].
void adjust_brightness(MutableImageView image, float factor);
void adjust_contrast(MutableImageView image, float factor);
void adjust_saturation(MutableImageView image, float factor, ColorScratch& scratch);
void adjust_hue(MutableImageView image, float factor);
void permute_channels(MutableImageView image, const ChannelOrder& order);

}  // namespace libreyolo::core::data

#include "libreyolo/core/data/augment/color_adjust.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "libreyolo/core/data/augment/simd.hpp"
#include "libreyolo/core/error.hpp"

// Built with -ffp-contract=off (core/CMakeLists.txt): every float step below must round on its
// own, as torch's do; a compiler that fused a multiply and an add would change bytes.

namespace libreyolo::core::data {
namespace {

// torchvision's grayscale weights, as the float32 scalars its kernels receive.
constexpr float kRedWeight = 0.2989f;
constexpr float kGreenWeight = 0.587f;
constexpr float kBlueWeight = 0.114f;

// Exact weighted sums in 22-bit fixed point: entry v is floor(v * weight * 2^22), so
// table sums are at most 3 units below the exact sum. floored_gray trusts the integer floor
// unless the sum is within 128 units of an integer: the float chain is at most 1.25 * 2^-16
// (80 units) away from the exact sum (three roundings, half an ulp each, below 256).
constexpr int kGrayBits = 22;
constexpr std::uint32_t kGrayOne = 1u << kGrayBits;
constexpr std::uint32_t kGrayMargin = 128;

struct GrayTables {
  std::uint32_t red[256], green[256], blue[256];
};

const GrayTables& gray_tables() {
  static const GrayTables tables = [] {
    GrayTables t{};
    for (int v = 0; v < 256; ++v) {
      // v * weight is exact in double (8 x 24 bits), and so is the power-of-two scaling.
      t.red[v] = static_cast<std::uint32_t>(std::floor(v * double{kRedWeight} * kGrayOne));
      t.green[v] = static_cast<std::uint32_t>(std::floor(v * double{kGreenWeight} * kGrayOne));
      t.blue[v] = static_cast<std::uint32_t>(std::floor(v * double{kBlueWeight} * kGrayOne));
    }
    return t;
  }();
  return tables;
}

inline std::uint8_t truncate_to_byte(float v) {
  // torch's clamp_(0, 255) then .to(uint8): truncation toward zero.
  return static_cast<std::uint8_t>(std::min(std::max(v, 0.0f), 255.0f));
}

// One blended value: torch's x.mul(ratio).add_(other, alpha = 1 - ratio), clamped, cast.
inline std::uint8_t blend_value(std::uint8_t x, float other, float ratio, float alpha) {
  const float scaled = static_cast<float>(x) * ratio;
  return truncate_to_byte(std::fmaf(other, alpha, scaled));
}

// 1 - ratio as torchvision computes it (in double) and its kernel receives it (float32).
inline float one_minus(float ratio) { return static_cast<float>(1.0 - static_cast<double>(ratio)); }

void check_factor(float factor, const char* name) {
  if (!(factor >= 0.0f)) {
    throw Error(std::string("cannot adjust ") + name + " by " + std::to_string(factor),
                "the factor must be a non-negative number",
                std::string("give the ") + name + " range non-negative bounds");
  }
}

inline const std::uint8_t* row_of(ImageView image, int y) {
  return image.pixels + static_cast<std::size_t>(y) * image.width * 3;
}

inline std::uint8_t* row_of(MutableImageView image, int y) {
  return image.pixels + static_cast<std::size_t>(y) * image.width * 3;
}

}  // namespace

ChannelMap::ChannelMap() {
  for (std::size_t v = 0; v < 256; ++v) values[v] = static_cast<std::uint8_t>(v);
}

ChannelMap ChannelMap::compose(const ChannelMap& outer, const ChannelMap& inner) {
  if (inner.identity) return outer;
  if (outer.identity) return inner;
  ChannelMap map;
  map.identity = false;
  for (std::size_t v = 0; v < 256; ++v) map.values[v] = outer.values[inner.values[v]];
  return map;
}

std::uint8_t floored_gray_reference(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  const float red = static_cast<float>(r) * kRedWeight;
  const float with_green = std::fmaf(static_cast<float>(g), kGreenWeight, red);
  const float gray = std::fmaf(static_cast<float>(b), kBlueWeight, with_green);
  return static_cast<std::uint8_t>(std::floor(gray));
}

std::uint8_t floored_gray(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  const GrayTables& t = gray_tables();
  const std::uint32_t sum = t.red[r] + t.green[g] + t.blue[b];
  const std::uint32_t fraction = sum & (kGrayOne - 1);
  if (fraction < kGrayMargin || fraction > kGrayOne - kGrayMargin) {
    return floored_gray_reference(r, g, b);
  }
  return static_cast<std::uint8_t>(sum >> kGrayBits);
}

ChannelMap brightness_map(float factor) {
  check_factor(factor, "brightness");
  ChannelMap map;
  map.identity = false;
  for (int v = 0; v < 256; ++v) {
    map.values[static_cast<std::size_t>(v)] = truncate_to_byte(static_cast<float>(v) * factor);
  }
  return map;
}

ChannelMap contrast_map(float mean, float factor) {
  check_factor(factor, "contrast");
  const float alpha = one_minus(factor);
  ChannelMap map;
  map.identity = false;
  for (int v = 0; v < 256; ++v) {
    map.values[static_cast<std::size_t>(v)] =
        blend_value(static_cast<std::uint8_t>(v), mean, factor, alpha);
  }
  return map;
}

float gray_mean(ImageView image, const ChannelMap& through) {
  const std::size_t pixels = static_cast<std::size_t>(image.width) * image.height;
  if (pixels == 0) return 0.0f;
  // An exact integer sum: torch's float32 sum is exact too while it stays below 2^24.
  std::uint64_t sum = 0;
  for (int y = 0; y < image.height; ++y) {
    const std::uint8_t* p = row_of(image, y);
    if (through.identity) {
      for (int x = 0; x < image.width; ++x, p += 3) sum += floored_gray(p[0], p[1], p[2]);
    } else {
      for (int x = 0; x < image.width; ++x, p += 3) {
        sum += floored_gray(through(p[0]), through(p[1]), through(p[2]));
      }
    }
  }
  return static_cast<float>(sum) / static_cast<float>(pixels);
}

namespace {

// Entry [gray * 256 + x] is the saturated value of channel value x in a pixel of that gray.
// For factors >= 2^-20 (and 0) the blend is exact in double: every term is a multiple of
// 2^(e - 23), e = the factor's binary exponent, and below 2^10, so one rounding to float is
// the fused multiply-add's; tinier factors take fmaf itself.
void build_saturation_table(float factor, std::vector<std::uint8_t>& table) {
  table.resize(256 * 256);
  const float alpha = one_minus(factor);
  float scaled[256];
  for (int v = 0; v < 256; ++v) scaled[v] = static_cast<float>(v) * factor;
  const bool exact_in_double = factor == 0.0f || factor >= 0x1p-20f;
  for (int gray = 0; gray < 256; ++gray) {
    std::uint8_t* row = table.data() + static_cast<std::size_t>(gray) * 256;
    if (exact_in_double) {
      const double weighted_gray = gray * static_cast<double>(alpha);
      for (int v = 0; v < 256; ++v) {
        row[v] = truncate_to_byte(static_cast<float>(weighted_gray + scaled[v]));
      }
    } else {
      for (int v = 0; v < 256; ++v) {
        row[v] = truncate_to_byte(std::fmaf(static_cast<float>(gray), alpha, scaled[v]));
      }
    }
  }
}

}  // namespace

void saturate(MutableImageView image, float factor, const ChannelMap& through,
              ColorScratch& scratch) {
  check_factor(factor, "saturation");
  build_saturation_table(factor, scratch.saturation_table);
  const std::uint8_t* table = scratch.saturation_table.data();
  for (int y = 0; y < image.height; ++y) {
    std::uint8_t* p = row_of(image, y);
    for (int x = 0; x < image.width; ++x, p += 3) {
      const std::uint8_t r = through(p[0]), g = through(p[1]), b = through(p[2]);
      const std::uint8_t* row = table + static_cast<std::size_t>(floored_gray(r, g, b)) * 256;
      p[0] = row[r];
      p[1] = row[g];
      p[2] = row[b];
    }
  }
}

void remap(MutableImageView image, const ChannelMap& map, const ChannelOrder& order) {
  const bool same_order = order[0] == 0 && order[1] == 1 && order[2] == 2;
  if (map.identity && same_order) return;
  const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
  std::uint8_t* p = image.pixels;
  if (same_order) {
    for (std::size_t i = 0; i < 3 * n; ++i) p[i] = map(p[i]);
    return;
  }
  for (std::size_t i = 0; i < n; ++i, p += 3) {
    const std::uint8_t in[3] = {p[0], p[1], p[2]};
    p[0] = map(in[order[0]]);
    p[1] = map(in[order[1]]);
    p[2] = map(in[order[2]]);
  }
}

void adjust_brightness(MutableImageView image, float factor) {
  remap(image, brightness_map(factor), {0, 1, 2});
}

void adjust_contrast(MutableImageView image, float factor) {
  check_factor(factor, "contrast");
  const float mean = gray_mean({image.width, image.height, image.pixels}, ChannelMap::none());
  remap(image, contrast_map(mean, factor), {0, 1, 2});
}

void adjust_saturation(MutableImageView image, float factor, ColorScratch& scratch) {
  saturate(image, factor, ChannelMap::none(), scratch);
}

void adjust_hue(MutableImageView image, float factor) {
  shift_hue(image, factor, ChannelMap::none());
}

void permute_channels(MutableImageView image, const ChannelOrder& order) {
  remap(image, ChannelMap::none(), order);
}

}  // namespace libreyolo::core::data

// torchvision's RandomPhotometricDistort on uint8 images: the kernels against hand-computed
// pixels and against a literal transcription of torchvision's float formulas, the fused
// pipeline against the kernels run one after another, and the draws' frequencies and ranges.

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "libreyolo/core/data/augment/color_adjust.hpp"
#include "libreyolo/core/data/augment/photometric_distort.hpp"
#include "libreyolo/core/data/augment/random.hpp"
#include "libreyolo/core/error.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;
namespace sa = libreyolo::sdk::augment;

namespace {

// ---- torchvision's uint8 kernels, transcribed from its tensor code one value at a time ------
// (float32 throughout; fmaf where torch's vectorised add_(other, alpha) fuses; every other step
// its own statement so nothing else fuses).

std::uint8_t to_byte(float v) {
  return static_cast<std::uint8_t>(std::min(std::max(v, 0.0f), 255.0f));
}

// _rgb_to_grayscale_image(preserve_dtype=False) then floor_().
float reference_gray(const std::uint8_t* p) {
  const float red = static_cast<float>(p[0]) * 0.2989f;
  const float with_green = std::fmaf(static_cast<float>(p[1]), 0.587f, red);
  return std::floor(std::fmaf(static_cast<float>(p[2]), 0.114f, with_green));
}

// _blend(image, other, ratio): image.mul(ratio).add_(other, alpha=1 - ratio), clamp, to uint8.
std::uint8_t reference_blend(std::uint8_t x, float other, float ratio) {
  const float alpha = static_cast<float>(1.0 - static_cast<double>(ratio));
  const float scaled = static_cast<float>(x) * ratio;
  return to_byte(std::fmaf(other, alpha, scaled));
}

void reference_brightness(aug::Image& img, float f) {
  for (std::uint8_t& v : img.pixels) {
    const float scaled = static_cast<float>(v) * f;
    v = to_byte(scaled);
  }
}

void reference_contrast(aug::Image& img, float f) {
  double sum = 0;  // exact for these small images
  const std::size_t n = img.pixels.size() / 3;
  for (std::size_t i = 0; i < n; ++i) sum += reference_gray(&img.pixels[3 * i]);
  const float mean = static_cast<float>(sum) / static_cast<float>(n);
  for (std::uint8_t& v : img.pixels) v = reference_blend(v, mean, f);
}

void reference_saturation(aug::Image& img, float f) {
  for (std::size_t i = 0; i < img.pixels.size(); i += 3) {
    const float gray = reference_gray(&img.pixels[i]);
    for (int c = 0; c < 3; ++c) img.pixels[i + c] = reference_blend(img.pixels[i + c], gray, f);
  }
}

// adjust_hue: to float (x * (1/255)), _rgb_to_hsv with its masked sums, add, remainder,
// _hsv_to_rgb with its gather table, to uint8 (x 255.999, truncated).
void reference_hue_pixel(std::uint8_t* px, float hue) {
  const float unit = static_cast<float>(1.0 / 255.0);
  const float r = px[0] * unit, g = px[1] * unit, b = px[2] * unit;
  const float maxc = std::max({r, g, b}), minc = std::min({r, g, b});
  const bool eqc = maxc == minc;
  const float range = maxc - minc;
  const float s = range / (eqc ? 1.0f : maxc);
  const float divisor = eqc ? 1.0f : range;
  const float rc = (maxc - r) / divisor, gc = (maxc - g) / divisor, bc = (maxc - b) / divisor;
  const bool neq_r = maxc != r, eq_g = maxc == g;
  const float hg = ((rc + 2.0f) - bc) * static_cast<float>(eq_g && neq_r);
  const float hr = (bc - gc) * static_cast<float>(!neq_r);
  const float hb = ((gc + 4.0f) - rc) * static_cast<float>(neq_r && !eq_g);
  const float sum = (hr + hg) + hb;
  const float sixths = sum * static_cast<float>(1.0 / 6.0);
  const float h0 = std::fmod(sixths + 1.0f, 1.0f);
  float h = std::fmod(h0 + hue, 1.0f);
  if (h != 0.0f && h < 0.0f) h += 1.0f;
  const float h6 = h * 6.0f;
  const float i = std::floor(h6);
  const float f = h6 - i;
  const int sector = static_cast<int>(i) % 6;
  const float sxf = s * f, one_minus_s = 1.0f - s, v = maxc;
  auto clamp01 = [](float x) { return std::min(std::max(x, 0.0f), 1.0f); };
  const float q = clamp01((1.0f - sxf) * v);
  const float t = clamp01((sxf + one_minus_s) * v);
  const float p = clamp01(one_minus_s * v);
  const float vpqt[4] = {v, p, q, t};
  constexpr int kSelect[3][6] = {{0, 2, 1, 1, 3, 0}, {3, 0, 0, 2, 1, 1}, {1, 1, 3, 0, 0, 2}};
  const float to_byte_scale = static_cast<float>(255.0 + 1.0 - 1e-3);
  for (int c = 0; c < 3; ++c) {
    const float scaled = vpqt[kSelect[c][sector]] * to_byte_scale;
    px[c] = static_cast<std::uint8_t>(static_cast<int>(scaled));
  }
}

void reference_hue(aug::Image& img, float hue) {
  for (std::size_t i = 0; i < img.pixels.size(); i += 3) reference_hue_pixel(&img.pixels[i], hue);
}

void reference_permute(aug::Image& img, const aug::ChannelOrder& order) {
  for (std::size_t i = 0; i < img.pixels.size(); i += 3) {
    const std::uint8_t in[3] = {img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]};
    for (int c = 0; c < 3; ++c) img.pixels[i + c] = in[order[static_cast<std::size_t>(c)]];
  }
}

// RandomPhotometricDistort._transform with the reference kernels.
void reference_distort(aug::Image& img, const aug::PhotometricDistortParams& p) {
  if (p.brightness) reference_brightness(img, p.brightness_factor);
  if (p.contrast && p.contrast_before) reference_contrast(img, p.contrast_factor);
  if (p.saturation) reference_saturation(img, p.saturation_factor);
  if (p.hue) reference_hue(img, p.hue_factor);
  if (p.contrast && !p.contrast_before) reference_contrast(img, p.contrast_factor);
  if (p.permute) reference_permute(img, p.permutation);
}

aug::Image pixels_image(std::vector<at::Rgb> colours, int w, int h) {
  aug::Image img = at::make_image(w, h);
  for (std::size_t i = 0; i < colours.size(); ++i) {
    img.pixels[3 * i] = colours[i].r;
    img.pixels[3 * i + 1] = colours[i].g;
    img.pixels[3 * i + 2] = colours[i].b;
  }
  return img;
}

std::vector<int> bytes(const aug::Image& img) { return {img.pixels.begin(), img.pixels.end()}; }

struct Bounds {
  float low, high;
};

}  // namespace

TEST_CASE("detr photometric: brightness and contrast on hand-computed pixels") {
  // Brightness 1.1 (float32 1.10000002): 7 -> 7.7 -> 7, 100 -> 110.000002 -> 110,
  // 200 -> 220.000005 -> 220, 250 -> 275 -> clamped 255.
  aug::Image img = pixels_image({{0, 7, 100}, {200, 250, 1}}, 2, 1);
  aug::adjust_brightness(at::mview(img), 1.1f);
  CHECK(bytes(img) == std::vector<int>{0, 7, 110, 220, 255, 1});

  // Contrast 0.5 on a flat 100 grey: its gray is floor(100 * 0.9999) = 99 (the weights sum to
  // 0.9999), so every value becomes 100 * 0.5 + 99 * 0.5 = 99.5 -> 99.
  aug::Image flat = at::make_image(4, 3, {100, 100, 100});
  aug::adjust_contrast(at::mview(flat), 0.5f);
  CHECK(bytes(flat) == std::vector<int>(36, 99));

  // Black and (200, 200, 200): grays 0 and floor(199.98) = 199, mean 99.5; factor 0.5:
  // 0 -> 49.75 -> 49, 200 -> 100 + 49.75 -> 149. Factor 1.5 (alpha -0.5): 0 -> -49.75 -> 0,
  // 200 -> 300 - 49.75 = 250.25 -> 250.
  aug::Image two = pixels_image({{0, 0, 0}, {200, 200, 200}}, 2, 1);
  aug::Image two_high = two;
  aug::adjust_contrast(at::mview(two), 0.5f);
  CHECK(bytes(two) == std::vector<int>{49, 49, 49, 149, 149, 149});
  aug::adjust_contrast(at::mview(two_high), 1.5f);
  CHECK(bytes(two_high) == std::vector<int>{0, 0, 0, 250, 250, 250});

  // The fused multiply-add: a flat (52, 52, 53) image has gray floor(52.1088) = 52, mean 52.
  // With factor 0x1.48cb12p+0 a channel of 52 blends 52 with 52, on paper 52, but
  // fma(52, 1 - f, 52 * f) is 51.9999962 -> 51; 53 gives 52 + f = 53.28 -> 53.
  aug::Image fused = at::make_image(4, 3, {52, 52, 53});
  aug::adjust_contrast(at::mview(fused), 0x1.48cb12p+0f);
  CHECK(bytes(fused) == bytes(at::make_image(4, 3, {51, 51, 53})));
}

TEST_CASE("detr photometric: saturation, hue and permutation on hand-computed pixels") {
  aug::ColorScratch scratch;
  // (200, 100, 50): gray floor(59.78 + 58.7 + 5.7) = 124. Factor 0 gives the gray; factor 2
  // gives 2x - 124: 276 -> 255, 76, -24 -> 0.
  aug::Image grey = pixels_image({{200, 100, 50}}, 1, 1);
  aug::Image vivid = grey;
  aug::adjust_saturation(at::mview(grey), 0.0f, scratch);
  CHECK(bytes(grey) == std::vector<int>{124, 124, 124});
  aug::adjust_saturation(at::mview(vivid), 2.0f, scratch);
  CHECK(bytes(vivid) == std::vector<int>{255, 76, 0});

  // Where the fused multiply-add shows: (115, 115, 116) has gray floor(115.1025) = 115, so its
  // R and G blend 115 with 115, exactly 115 on paper. With factor 0x1.43ce22p+0 the float32
  // 115 * f is 145.459 and fma(115, 1 - f, 145.459) is 114.999992 -> 114 (a separately
  // rounded product would give 115.0 -> 115). B: 116 * f + 115 * (1 - f) = 116.26 -> 116.
  CHECK(int(aug::floored_gray(115, 115, 116)) == 115);
  aug::Image fused = pixels_image({{115, 115, 116}}, 1, 1);
  aug::adjust_saturation(at::mview(fused), 0x1.43ce22p+0f, scratch);
  CHECK(bytes(fused) == std::vector<int>{114, 114, 116});

  // Pure red is hue 0, s = v = 1 (255 * float(1/255) rounds to 1). +0.5 is hue 0.5: h6 = 3,
  // sector 3, f = 0: (p, q, v) = (0, 1, 1) -> 255.999 -> (0, 255, 255). +1/3 (float 0.33333334):
  // h6 = 2.0000000596 rounds to 2, sector 2: (p, v, t) = (0, 255, 0). A grey has s = 0 and keeps
  // its value (x / 255 * 255.999 truncates back to x).
  aug::Image red = pixels_image({{255, 0, 0}, {255, 0, 0}, {77, 77, 77}}, 3, 1);
  aug::Image red_third = red;
  aug::adjust_hue(at::mview(red), 0.5f);
  CHECK(bytes(red) == std::vector<int>{0, 255, 255, 0, 255, 255, 77, 77, 77});
  aug::adjust_hue(at::mview(red_third), static_cast<float>(1.0 / 3.0));
  CHECK(bytes(red_third) == std::vector<int>{0, 255, 0, 0, 255, 0, 77, 77, 77});

  // Output channel c takes input channel order[c]: (10, 20, 30) with [2, 0, 1] -> (30, 10, 20).
  aug::Image px = pixels_image({{10, 20, 30}}, 1, 1);
  aug::permute_channels(at::mview(px), {2, 0, 1});
  CHECK(bytes(px) == std::vector<int>{30, 10, 20});
}

TEST_CASE("detr photometric: the integer floored gray equals the float chain for every colour") {
  long wrong = 0;
  for (int r = 0; r < 256; ++r) {
    for (int g = 0; g < 256; ++g) {
      for (int b = 0; b < 256; ++b) {
        const std::uint8_t px[3] = {static_cast<std::uint8_t>(r), static_cast<std::uint8_t>(g),
                                    static_cast<std::uint8_t>(b)};
        wrong += aug::floored_gray(px[0], px[1], px[2]) != static_cast<int>(reference_gray(px));
      }
    }
  }
  CHECK(wrong == 0);
  // The float chain is not the exact weighted sum: grey 1 is 0.9999 -> 0, and some colours
  // floor differently from the exact sum (that is what the fallback is for).
  CHECK(int(aug::floored_gray(1, 1, 1)) == 0);
  CHECK(int(aug::floored_gray(255, 255, 255)) == 254);
}

TEST_CASE("detr photometric: each kernel equals its transcription on noise, any factor") {
  aug::ColorScratch scratch;
  const aug::Image noise = at::make_noise_image(37, 23, 5);
  // Tiny saturation factors take fmaf instead of the double shortcut; both are checked.
  for (const float f : {0.0f, 1e-7f, 0x1p-20f, 0.3f, 0.5f, 0.999f, 1.0f, 1.2345f, 1.5f, 3.7f}) {
    aug::Image got = noise, want = noise;
    aug::adjust_saturation(at::mview(got), f, scratch);
    reference_saturation(want, f);
    INFO("saturation " << f);
    CHECK(bytes(got) == bytes(want));
    got = noise;
    want = noise;
    aug::adjust_contrast(at::mview(got), f);
    reference_contrast(want, f);
    CHECK(bytes(got) == bytes(want));
    got = noise;
    want = noise;
    aug::adjust_brightness(at::mview(got), f);
    reference_brightness(want, f);
    CHECK(bytes(got) == bytes(want));
  }
  std::mt19937_64 rng(11);
  for (int k = 0; k < 40; ++k) {
    const float hue =
        k == 0
            ? 0.0f
            : (k == 1 ? 0.5f : (k == 2 ? -0.5f : static_cast<float>(aug::uniform(rng, -0.5, 0.5))));
    aug::Image got = noise, want = noise;
    aug::adjust_hue(at::mview(got), hue);
    reference_hue(want, hue);
    INFO("hue " << hue);
    CHECK(bytes(got) == bytes(want));
  }
}

TEST_CASE("detr photometric: hue equals its transcription on half of all colours") {
  // One value in ~10^5 is decided by a last-bit difference in the float chain (a division
  // instead of torchvision's multiplication by float(1/6), say): a dense lattice catches them.
  aug::Image img = at::make_image(4096, 2048);
  for (std::size_t i = 0; i < img.pixels.size() / 3; ++i) {
    img.pixels[3 * i] = static_cast<std::uint8_t>(i >> 15);
    img.pixels[3 * i + 1] = static_cast<std::uint8_t>(i >> 7);
    img.pixels[3 * i + 2] = static_cast<std::uint8_t>(2 * i + (i >> 15 & 1));
  }
  aug::Image got = img, want = img;
  aug::adjust_hue(at::mview(got), 0.05f);
  reference_hue(want, 0.05f);
  CHECK(got.pixels == want.pixels);
}

TEST_CASE("detr photometric: hue equals its transcription on every grey and saturated ramp") {
  // Greys, the six hue edges and colours next to them, where the sector choice is decided.
  aug::Image img = at::make_image(256, 8);
  for (int x = 0; x < 256; ++x) {
    const auto v = static_cast<std::uint8_t>(x);
    const at::Rgb row[8] = {{v, v, v},   {255, v, 0}, {v, 255, 0}, {0, 255, v},
                            {0, v, 255}, {v, 0, 255}, {255, 0, v}, {v, 128, 255}};
    for (int y = 0; y < 8; ++y) {
      std::uint8_t* p = img.pixel(x, y);
      p[0] = row[y].r;
      p[1] = row[y].g;
      p[2] = row[y].b;
    }
  }
  for (const float hue : {-0.5f, -0.3f, -1e-7f, 0.0f, 1e-7f, 0.05f, 0.25f, 0.5f}) {
    aug::Image got = img, want = img;
    aug::adjust_hue(at::mview(got), hue);
    reference_hue(want, hue);
    INFO("hue " << hue);
    CHECK(bytes(got) == bytes(want));
  }
}

TEST_CASE("detr photometric: the fused pipeline equals the kernels one after another") {
  aug::ColorScratch scratch;
  const aug::Image noise = at::make_noise_image(29, 17, 2);
  sa::PhotometricDistort config;
  std::mt19937_64 rng(99);
  int changed = 0;
  for (int k = 0; k < 200; ++k) {
    config.prob = k < 100 ? 1.0 : 0.5;  // everything on, then the real mix
    const aug::PhotometricDistortParams params = aug::draw_photometric_distort(config, 1, rng);
    aug::Image got = noise, want = noise;
    aug::apply_photometric_distort(at::mview(got), params, scratch);
    reference_distort(want, params);
    INFO("draw " << k);
    CHECK(bytes(got) == bytes(want));
    changed += bytes(got) != bytes(noise);
  }
  CHECK(changed > 150);
}

TEST_CASE("detr photometric: draw frequencies, factor ranges and order match torchvision's") {
  sa::PhotometricDistort config;  // prob 0.5, torchvision's default ranges
  std::mt19937_64 rng(2024);
  constexpr int kDraws = 20000;
  // Binomial(20000, 0.5): sd 71, so 5 sd is 355 draws (1.8%); the seed is fixed.
  constexpr int kTolerance = 355;
  int on[5] = {}, before = 0;
  float lo[4] = {9, 9, 9, 9}, hi[4] = {-9, -9, -9, -9};
  std::array<int, 6> orders{};
  for (int k = 0; k < kDraws; ++k) {
    const aug::PhotometricDistortParams p = aug::draw_photometric_distort(config, 3, rng);
    const bool flags[5] = {p.brightness, p.contrast, p.saturation, p.hue, p.permute};
    const float factors[4] = {p.brightness_factor, p.contrast_factor, p.saturation_factor,
                              p.hue_factor};
    for (int i = 0; i < 5; ++i) on[i] += flags[i];
    for (int i = 0; i < 4; ++i) {
      if (!flags[i]) continue;
      lo[i] = std::min(lo[i], factors[i]);
      hi[i] = std::max(hi[i], factors[i]);
    }
    before += p.contrast_before;
    if (p.permute) {
      const auto& o = p.permutation;
      CHECK(std::set<int>{o[0], o[1], o[2]}.size() == 3);
      ++orders[static_cast<std::size_t>(o[0] * 2 + (o[1] > o[2] ? 1 : 0))];
    }
  }
  for (int i = 0; i < 5; ++i) CHECK(std::abs(on[i] - kDraws / 2) < kTolerance);
  CHECK(std::abs(before - kDraws / 2) < kTolerance);
  const Bounds ranges[4] = {{0.875f, 1.125f}, {0.5f, 1.5f}, {0.5f, 1.5f}, {-0.05f, 0.05f}};
  for (int i = 0; i < 4; ++i) {
    const float span = ranges[i].high - ranges[i].low;
    INFO("adjustment " << i);
    CHECK(lo[i] >= ranges[i].low);
    CHECK(hi[i] <= ranges[i].high);
    CHECK(lo[i] < ranges[i].low + 0.002f * span);  // ~5000 draws cover the range
    CHECK(hi[i] > ranges[i].high - 0.002f * span);
  }
  // Six orders, identity included, each ~1/6 of ~10000 permuted draws (sd ~37).
  for (const int count : orders) CHECK(std::abs(count - on[4] / 6) < 200);
}

TEST_CASE("detr photometric: prob 0 and 1, skip_without_boxes, bad ranges") {
  sa::PhotometricDistort config;
  std::mt19937_64 rng(5);
  config.prob = 0.0;
  for (int k = 0; k < 100; ++k)
    CHECK(aug::draw_photometric_distort(config, 1, rng).changes_nothing());
  config.prob = 1.0;
  for (int k = 0; k < 100; ++k) {
    const auto p = aug::draw_photometric_distort(config, 1, rng);
    CHECK((p.brightness && p.contrast && p.saturation && p.hue && p.permute));
  }
  // Without boxes: no draw at all, nothing changes.
  config.skip_without_boxes = true;
  std::mt19937_64 copy = rng;
  CHECK(aug::draw_photometric_distort(config, 0, rng).changes_nothing());
  CHECK(rng() == copy());
  CHECK_FALSE(aug::draw_photometric_distort(config, 2, rng).changes_nothing());

  sa::PhotometricDistort bad;
  bad.hue = {-0.6, 0.0};
  CHECK_THROWS_AS(aug::draw_photometric_distort(bad, 1, rng), libreyolo::core::Error);
  bad = {};
  bad.saturation = {-0.1, 1.0};
  CHECK_THROWS_AS(aug::draw_photometric_distort(bad, 1, rng), libreyolo::core::Error);
  bad = {};
  bad.contrast = {1.5, 0.5};
  CHECK_THROWS_AS(aug::draw_photometric_distort(bad, 1, rng), libreyolo::core::Error);
}

TEST_CASE("detr photometric: the same seed gives the same bytes, on a 1x1 image too") {
  aug::ColorScratch scratch;
  sa::PhotometricDistort config;
  for (const int side : {1, 64}) {
    const aug::Image original = at::make_noise_image(side, side, 8);
    auto run = [&](std::uint64_t seed) {
      std::mt19937_64 rng(seed);
      aug::Image img = original;
      for (int k = 0; k < 5; ++k) {
        aug::apply_photometric_distort(at::mview(img),
                                       aug::draw_photometric_distort(config, 1, rng), scratch);
      }
      return img;
    };
    CHECK(at::same_bytes(run(42), run(42)));
    if (side > 1) CHECK_FALSE(at::same_bytes(run(42), run(43)));
  }
}

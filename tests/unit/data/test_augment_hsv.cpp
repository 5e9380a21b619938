// HSV jitter in OpenCV's 8-bit HSV: zero gains change nothing, fixed deltas give hand-computed
// pixels, and the integer conversions agree with the float formulas.

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>

#include "libreyolo/core/data/augment/hsv.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;

namespace {

// OpenCV's 8-bit RGB -> HSV as written there: reciprocal tables in 20.12 fixed point.
aug::Hsv8 opencv_rgb_to_hsv(int r, int g, int b) {
  static const auto tables = [] {
    std::array<std::array<long, 256>, 2> t{};  // saturation, hue
    for (int i = 1; i < 256; ++i) {
      t[0][static_cast<std::size_t>(i)] = std::lround(255.0 * 4096 / i);
      t[1][static_cast<std::size_t>(i)] = std::lround(180.0 * 4096 / (6 * i));
    }
    return t;
  }();
  const int v = std::max({r, g, b});
  const int diff = v - std::min({r, g, b});
  const long s = (diff * tables[0][static_cast<std::size_t>(v)] + 2048) >> 12;
  const int numerator = v == r ? g - b : (v == g ? b - r + 2 * diff : r - g + 4 * diff);
  long h = (numerator * tables[1][static_cast<std::size_t>(diff)] + 2048) >> 12;
  h += h < 0 ? 180 : 0;
  return {static_cast<std::uint8_t>(h), static_cast<std::uint8_t>(s),
          static_cast<std::uint8_t>(v)};
}

// HSV -> RGB in integers, rounded: V, p = V (1 - S), x = V (1 - S g / 30) placed by sector.
void integer_hsv_to_rgb(int h, int s, int v, std::uint8_t rgb[3]) {
  const int sector = h / 30, f = h % 30;
  const int g = sector % 2 == 1 ? f : 30 - f;
  const int value[3] = {v, (v * (7650 - s * g) + 3825) / 7650, (v * (255 - s) + 127) / 255};
  constexpr int kOrder[6][3] = {{0, 1, 2}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}, {1, 2, 0}, {0, 2, 1}};
  for (int ch = 0; ch < 3; ++ch) rgb[ch] = static_cast<std::uint8_t>(value[kOrder[sector][ch]]);
}

aug::Image one_pixel(int r, int g, int b) {
  return at::make_image(1, 1, {static_cast<std::uint8_t>(r), static_cast<std::uint8_t>(g),
                               static_cast<std::uint8_t>(b)});
}

void check_pixel(const aug::Image& img, int r, int g, int b) {
  CHECK(int(img.pixels[0]) == r);
  CHECK(int(img.pixels[1]) == g);
  CHECK(int(img.pixels[2]) == b);
}

}  // namespace

TEST_CASE("hsv: zero gains draw zero deltas and leave the image untouched") {
  std::mt19937_64 rng(3);
  const aug::HsvGains zero{0, 0, 0};
  const aug::Image original = at::make_noise_image(64, 48, 9);
  aug::Image img = original;
  for (int i = 0; i < 50; ++i) {
    const aug::HsvDelta d = aug::random_hsv_delta(zero, rng);
    CHECK(d.identity());
    aug::apply_hsv(at::mview(img), d);
  }
  CHECK(at::same_bytes(img, original));
}

TEST_CASE("hsv: fixed deltas match hand-computed pixels") {
  // (200, 100, 50): V = 200, S = round(150 * 255 / 200) = 191, H = 20 deg -> 10.
  const aug::Hsv8 hsv = aug::rgb_to_hsv8(200, 100, 50);
  CHECK(int(hsv.h) == 10);
  CHECK(int(hsv.s) == 191);
  CHECK(int(hsv.v) == 200);
  {
    // V + 20 = 220: R = V = 220, B = V (1 - S) = 220 * 64 / 255 = 55.2 -> 55,
    // G = V (1 - S (1 - f)) with f = 1/3: 220 * (1 - 191/255 * 2/3) = 110.1 -> 110.
    aug::Image img = one_pixel(200, 100, 50);
    aug::apply_hsv(at::mview(img), {0, 0, 20});
    check_pixel(img, 220, 110, 55);
  }
  {
    // Pure red, hue + 60 (120 degrees): pure green.
    aug::Image img = one_pixel(255, 0, 0);
    aug::apply_hsv(at::mview(img), {60, 0, 0});
    check_pixel(img, 0, 255, 0);
  }
  {
    // Grey 114 has S = 0; S + 29: R = V = 114, G = B = 114 * (255 - 29) / 255 = 101.04 -> 101.
    aug::Image img = one_pixel(114, 114, 114);
    aug::apply_hsv(at::mview(img), {0, 29, 0});
    check_pixel(img, 114, 101, 101);
  }
  {
    // Clamping: V - 29 on a dark pixel saturates at 0 -> black.
    aug::Image img = one_pixel(20, 10, 5);
    aug::apply_hsv(at::mview(img), {0, 0, -29});
    check_pixel(img, 0, 0, 0);
  }
  {
    // Hue wraps modulo 180: 178 + 4 -> 2. (255, 0, 8): H = round(-8 * 30 / 255) = -1 -> 179.
    const aug::Hsv8 h = aug::rgb_to_hsv8(255, 0, 8);
    CHECK(int(h.h) == 179);
    aug::Image img = one_pixel(255, 0, 8);
    aug::apply_hsv(at::mview(img), {4, 0, 0});
    CHECK(int(aug::rgb_to_hsv8(img.pixels[0], img.pixels[1], img.pixels[2]).h) == 3);
    aug::Image back = img;
    aug::apply_hsv(at::mview(back), {-4, 0, 0});
    CHECK(int(aug::rgb_to_hsv8(back.pixels[0], back.pixels[1], back.pixels[2]).h) == 179);
  }
}

TEST_CASE("hsv: integer conversions agree with the float formulas") {
  // HSV -> RGB against the float formula, every (h, s) for a few values of v.
  int worst = 0;
  for (int h = 0; h < 180; ++h) {
    for (int s = 0; s < 256; s += 3) {
      for (int v : {0, 1, 57, 114, 200, 255}) {
        std::uint8_t rgb[3];
        aug::hsv8_to_rgb({static_cast<std::uint8_t>(h), static_cast<std::uint8_t>(s),
                          static_cast<std::uint8_t>(v)},
                         rgb);
        const double hh = h / 30.0, ss = s / 255.0, vv = v;
        const int sector = static_cast<int>(std::floor(hh));
        const double f = hh - sector;
        const double p = vv * (1 - ss), q = vv * (1 - ss * f), t = vv * (1 - ss * (1 - f));
        const double table[6][3] = {{vv, t, p}, {q, vv, p}, {p, vv, t},
                                    {p, q, vv}, {t, p, vv}, {vv, p, q}};
        for (int ch = 0; ch < 3; ++ch) {
          worst = std::max(worst, std::abs(rgb[ch] - static_cast<int>(std::lround(table[sector][ch]))));
        }
      }
    }
  }
  CHECK(worst <= 1);

  // RGB -> HSV -> RGB is lossy in 8 bits (hue has 180 steps) but close.
  int round_trip = 0;
  for (int r = 0; r < 256; r += 5) {
    for (int g = 0; g < 256; g += 5) {
      for (int b = 0; b < 256; b += 5) {
        std::uint8_t rgb[3];
        aug::hsv8_to_rgb(aug::rgb_to_hsv8(static_cast<std::uint8_t>(r), static_cast<std::uint8_t>(g),
                                          static_cast<std::uint8_t>(b)),
                         rgb);
        round_trip = std::max({round_trip, std::abs(rgb[0] - r), std::abs(rgb[1] - g),
                               std::abs(rgb[2] - b)});
      }
    }
  }
  MESSAGE("largest 8-bit RGB->HSV->RGB round-trip error: " << round_trip);
  CHECK(round_trip <= 5);
}

TEST_CASE("hsv: YOLOX delta ranges, and only the content rectangle changes") {
  std::mt19937_64 rng(17);
  const aug::HsvGains gains;  // 5, 30, 30
  int zero_h = 0, max_h = 0, max_s = 0, max_v = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const aug::HsvDelta d = aug::random_hsv_delta(gains, rng);
    zero_h += d.h == 0;
    max_h = std::max(max_h, std::abs(d.h));
    max_s = std::max(max_s, std::abs(d.s));
    max_v = std::max(max_v, std::abs(d.v));
  }
  CHECK(max_h == 4);   // trunc(U(-5, 5))
  CHECK(max_s == 29);  // trunc(U(-30, 30))
  CHECK(max_v == 29);
  // Zeroed half the time, plus trunc() to 0 for |U| < 1/5 of the other half.
  CHECK(zero_h > n * 0.5);
  CHECK(zero_h < n * 0.7);

  aug::Image img = at::make_noise_image(50, 40, 1);
  const aug::Image before = img;
  aug::apply_hsv(at::mview(img), 30, 20, {3, 20, -15});
  int changed_inside = 0, changed_outside = 0;
  for (int y = 0; y < 40; ++y) {
    for (int x = 0; x < 50; ++x) {
      const bool differs = std::memcmp(img.pixel(x, y), before.pixel(x, y), 3) != 0;
      (x < 30 && y < 20 ? changed_inside : changed_outside) += differs;
    }
  }
  CHECK(changed_inside > 500);
  CHECK(changed_outside == 0);
}

TEST_CASE("hsv: every colour converts exactly as OpenCV's integer code, vectorised or not") {
  // The implementation replaces tables and divisions by float steps, exact on these inputs;
  // this pins them on every input there is.
  int wrong_hsv = 0, wrong_rgb = 0;
  for (int r = 0; r < 256; ++r) {
    for (int g = 0; g < 256; ++g) {
      for (int b = 0; b < 256; ++b) {
        const aug::Hsv8 got = aug::rgb_to_hsv8(static_cast<std::uint8_t>(r),
                                               static_cast<std::uint8_t>(g),
                                               static_cast<std::uint8_t>(b));
        const aug::Hsv8 want = opencv_rgb_to_hsv(r, g, b);
        wrong_hsv += got.h != want.h || got.s != want.s || got.v != want.v;
      }
    }
  }
  for (int h = 0; h < 180; ++h) {
    for (int s = 0; s < 256; ++s) {
      for (int v = 0; v < 256; ++v) {
        std::uint8_t got[3], want[3];
        aug::hsv8_to_rgb({static_cast<std::uint8_t>(h), static_cast<std::uint8_t>(s),
                          static_cast<std::uint8_t>(v)},
                         got);
        integer_hsv_to_rgb(h, s, v, want);
        wrong_rgb += std::memcmp(got, want, 3) != 0;
      }
    }
  }
  CHECK(wrong_hsv == 0);
  CHECK(wrong_rgb == 0);

  // apply_hsv runs blocks of pixels through vector code: all 2^24 colours, a content width
  // that ends inside a block, deltas that wrap the hue and clamp S and V.
  aug::Image all = at::make_image(4096, 4096);
  for (std::size_t i = 0; i < 4096u * 4096u; ++i) {
    all.pixels[3 * i] = static_cast<std::uint8_t>(i >> 16);
    all.pixels[3 * i + 1] = static_cast<std::uint8_t>(i >> 8);
    all.pixels[3 * i + 2] = static_cast<std::uint8_t>(i);
  }
  const int content_width = 4096 - 37;
  for (const aug::HsvDelta delta : {aug::HsvDelta{4, -29, 29}, aug::HsvDelta{-4, 29, -29}}) {
    aug::Image img = all;
    aug::apply_hsv(at::mview(img), content_width, 4096, delta);
    int wrong = 0;
    for (int y = 0; y < 4096; ++y) {
      for (int x = 0; x < 4096; ++x) {
        const std::uint8_t* in = all.pixel(x, y);
        std::uint8_t want[3] = {in[0], in[1], in[2]};
        if (x < content_width) {
          const aug::Hsv8 hsv = opencv_rgb_to_hsv(in[0], in[1], in[2]);
          integer_hsv_to_rgb((hsv.h + delta.h + 180) % 180, std::clamp(hsv.s + delta.s, 0, 255),
                             std::clamp(hsv.v + delta.v, 0, 255), want);
        }
        wrong += std::memcmp(img.pixel(x, y), want, 3) != 0;
      }
    }
    INFO("delta " << delta.h << " " << delta.s << " " << delta.v);
    CHECK(wrong == 0);
  }
}

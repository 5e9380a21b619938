// torchvision's Resize((h, w)) on uint8: torch's integer separable bilinear (antialiased or
// not) against pixels computed by hand from its weight formulas, and the boxes' scaling.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "libreyolo/core/data/augment/interpolate_bilinear.hpp"
#include "libreyolo/core/data/augment/stretch_resize.hpp"
#include "libreyolo/core/error.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;
namespace sa = libreyolo::sdk::augment;

namespace {

// A w x h image whose three channels all hold `values` (row-major).
aug::Image grey_image(int w, int h, const std::vector<int>& values) {
  aug::Image img = at::make_image(w, h);
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (int c = 0; c < 3; ++c) img.pixels[3 * i + c] = static_cast<std::uint8_t>(values[i]);
  }
  return img;
}

std::vector<int> red_channel(const aug::Image& img) {
  std::vector<int> out;
  for (std::size_t i = 0; i < img.pixels.size(); i += 3) out.push_back(img.pixels[i]);
  return out;
}

// torch's separable uint8 resize written plainly from the axes: width pass over every row into
// a full uint8 image, then the height pass, each clamp((sum + 2^(p-1)) >> p).
aug::Image reference_resize(const aug::Image& src, int w, int h, bool antialias) {
  auto pass = [](const aug::Image& in, int out_w, int out_h, bool along_x, bool aa) {
    const int in_size = along_x ? in.width : in.height, out_size = along_x ? out_w : out_h;
    if (in_size == out_size) return in;
    aug::InterpolationAxis axis;
    std::vector<double> scratch;
    aug::interpolation_axis(in_size, out_size, aa, axis, scratch);
    aug::Image out = at::make_image(out_w, out_h);
    for (int y = 0; y < out_h; ++y) {
      for (int x = 0; x < out_w; ++x) {
        const int i = along_x ? x : y;
        for (int c = 0; c < 3; ++c) {
          long sum = 1L << (axis.precision - 1);
          for (int k = 0; k < axis.count[static_cast<std::size_t>(i)]; ++k) {
            const int j = axis.first[static_cast<std::size_t>(i)] + k;
            const int v = along_x ? in.pixel(j, y)[c] : in.pixel(x, j)[c];
            sum +=
                static_cast<long>(axis.weights[static_cast<std::size_t>(i * axis.stride + k)]) * v;
          }
          out.pixel(x, y)[c] =
              static_cast<std::uint8_t>(std::clamp(sum >> axis.precision, 0L, 255L));
        }
      }
    }
    return out;
  };
  return pass(pass(src, w, src.height, true, antialias), w, h, false, antialias);
}

std::vector<int> resized(const aug::Image& img, int w, int h, bool antialias) {
  aug::Image out = at::make_image(w, h);
  aug::InterpolateScratch scratch;
  aug::interpolate_bilinear(at::view(img), at::mview(out), antialias, scratch);
  return red_channel(out);
}

}  // namespace

TEST_CASE("detr resize: antialiased 4 -> 2 uses the widened triangle filter") {
  // scale 2, support 2, 5 taps. Output 0: centre 1, taps 0..2 at distances 0.25, 0.25, 0.75
  // of the support -> 0.75, 0.75, 0.25, normalised 3/7, 3/7, 1/7. The largest weight 3/7
  // gives precision 16 (3/7 * 2^17 would pass int16), weights 28087, 28087, 9362.
  // (10, 20, 30, 40): (28087 * 10 + 28087 * 20 + 9362 * 30 + 2^15) >> 16 = 17 (120/7 = 17.1);
  // output 1 has weights 1/7, 3/7, 3/7 on 20, 30, 40: 33 (230/7 = 32.9).
  aug::InterpolationAxis axis;
  std::vector<double> scratch;
  aug::interpolation_axis(4, 2, true, axis, scratch);
  CHECK(axis.taps == 5);
  CHECK(axis.precision == 16);
  CHECK(axis.first == std::vector<int>{0, 1});
  CHECK(axis.count == std::vector<int>{3, 3});
  CHECK(std::vector<int>(axis.weights.begin(), axis.weights.begin() + 3) ==
        std::vector<int>{28087, 28087, 9362});
  CHECK(resized(grey_image(4, 1, {10, 20, 30, 40}), 2, 1, true) == std::vector<int>{17, 33});
}

TEST_CASE("detr resize: without antialias 4 -> 2 is plain bilinear between two pixels") {
  // Source x = 2 (i + 0.5) - 0.5 = 0.5 and 2.5: halves of pixels (0, 1) and (2, 3), weight 0.5
  // -> precision 15, weights 16384. Sums round half up: (11 + 20) / 2 = 15.5 -> 16,
  // (31 + 40) / 2 = 35.5 -> 36. Antialiased, the same row gives 124 / 7 = 17.7 -> 18 and
  // 233 / 7 = 33.3 -> 33.
  const aug::Image row = grey_image(4, 1, {11, 20, 31, 40});
  CHECK(resized(row, 2, 1, false) == std::vector<int>{16, 36});
  CHECK(resized(row, 2, 1, true) == std::vector<int>{18, 33});
  // Growing 2 -> 4 without antialias: x = 0.5 (i + 0.5) - 0.5 = -0.25 (clamped to 0), 0.25,
  // 0.75, 1.25 (the second pixel clamped to the last one): 0, 0 * 3/4 + 100 / 4 = 25, 75, 100.
  CHECK(resized(grey_image(2, 1, {0, 100}), 4, 1, false) == std::vector<int>{0, 25, 75, 100});
  // Antialiased growth has support 1: the same weights here (normalised at the edges).
  CHECK(resized(grey_image(2, 1, {0, 100}), 4, 1, true) == std::vector<int>{0, 25, 75, 100});
}

TEST_CASE("detr resize: width first, each pass rounded to uint8, as torch") {
  // 2x2 -> 1x1: each axis averages two pixels (weights 1/2, rounded half up).
  // Rows first: (1 + 1) / 2 = 1 and (0 + 2) / 2 = 1, then (1 + 1) / 2 = 1.
  // Columns first would give (1 + 0) / 2 -> 1 and (1 + 2) / 2 -> 2, then 1.5 -> 2.
  CHECK(resized(grey_image(2, 2, {1, 1, 0, 2}), 1, 1, true) == std::vector<int>{1});
  // Two roundings: (0, 1 / 0, 0): the first row rounds 0.5 up to 1, the second is 0, then
  // 0.5 -> 1, where the exact mean 0.25 would round to 0.
  CHECK(resized(grey_image(2, 2, {0, 1, 0, 0}), 1, 1, true) == std::vector<int>{1});
  // Only the height changes: one vertical pass on the source rows.
  CHECK(resized(grey_image(1, 4, {10, 20, 30, 40}), 1, 2, true) == std::vector<int>{17, 33});
}

TEST_CASE("detr resize: the vector and ring-buffer paths equal the plain two-pass reference") {
  // Random sizes both ways, images with flat rows and flat bands (as a zoom-out canvas has).
  std::mt19937_64 rng(21);
  aug::InterpolateScratch scratch;  // reused across sizes, as the loader does
  for (int k = 0; k < 60; ++k) {
    const int w = 1 + static_cast<int>(rng() % 90), h = 1 + static_cast<int>(rng() % 90);
    const int ow = 1 + static_cast<int>(rng() % 90), oh = 1 + static_cast<int>(rng() % 90);
    aug::Image img = at::make_noise_image(w, h, rng());
    for (int y = 0; y < h; y += 3) {
      for (int x = 0; x < w; ++x) std::memcpy(img.pixel(x, y), img.pixel(0, y), 3);
    }
    for (const bool antialias : {true, false}) {
      aug::Image got = at::make_image(ow, oh);
      aug::interpolate_bilinear(at::view(img), at::mview(got), antialias, scratch);
      INFO(w << "x" << h << " -> " << ow << "x" << oh << " antialias " << antialias);
      CHECK(at::same_bytes(got, reference_resize(img, ow, oh, antialias)));
    }
  }
}

TEST_CASE("detr resize: the same size is a copy, a 1x1 image fills the output") {
  const aug::Image noise = at::make_noise_image(7, 5, 3);
  aug::Image out = at::make_image(7, 5, {0, 0, 0});
  aug::InterpolateScratch scratch;
  aug::interpolate_bilinear(at::view(noise), at::mview(out), true, scratch);
  CHECK(at::same_bytes(out, noise));
  const aug::Image dot = at::make_image(1, 1, {9, 80, 250});
  for (const bool antialias : {true, false}) {
    aug::Image big = at::make_image(5, 3, {0, 0, 0});
    aug::interpolate_bilinear(at::view(dot), at::mview(big), antialias, scratch);
    CHECK(at::same_bytes(big, at::make_image(5, 3, {9, 80, 250})));
    aug::Image small = at::make_image(1, 1, {0, 0, 0});
    aug::interpolate_bilinear(at::view(noise), at::mview(small), antialias, scratch);
    CHECK(small.pixels.size() == 3);
  }
  aug::Image empty;
  CHECK_THROWS_AS(aug::interpolate_bilinear(at::view(empty), at::mview(out), true, scratch),
                  libreyolo::core::Error);
}

TEST_CASE("detr resize: a flat image stays flat and the weights sum to one at every output") {
  aug::InterpolateScratch scratch;
  for (const bool antialias : {true, false}) {
    for (const int in : {1, 3, 17, 640, 1999}) {
      for (const int out : {1, 2, 5, 320, 640, 2560}) {
        aug::InterpolationAxis axis;
        std::vector<double> w;
        aug::interpolation_axis(in, out, antialias, axis, w);
        int worst = 0;
        for (int i = 0; i < out; ++i) {
          int sum = 0;
          for (int k = 0; k < axis.count[static_cast<std::size_t>(i)]; ++k) {
            sum += axis.weights[static_cast<std::size_t>(i * axis.stride + k)];
          }
          worst = std::max(worst, std::abs(sum - (1 << axis.precision)));
          CHECK(axis.first[static_cast<std::size_t>(i)] >= 0);
          CHECK(axis.first[static_cast<std::size_t>(i)] + axis.count[static_cast<std::size_t>(i)] <=
                in);
        }
        INFO(in << " -> " << out << " antialias " << antialias);
        CHECK(worst <= axis.taps);  // each weight rounds by at most half a unit
      }
    }
    const aug::Image flat = at::make_image(333, 97, {200, 7, 128});
    aug::Image out = at::make_image(64, 250, {0, 0, 0});
    aug::interpolate_bilinear(at::view(flat), at::mview(out), antialias, scratch);
    CHECK(at::same_bytes(out, at::make_image(64, 250, {200, 7, 128})));
  }
}

TEST_CASE("detr stretch resize: boxes scale per axis by float32 ratios, unclamped") {
  aug::Image img = at::make_image(4, 3);
  std::vector<aug::PixelBox> boxes{{1, 1, 3, 2, 5}, {0, 0, 4, 3, 1}};
  aug::Image out = at::make_image(8, 9);
  aug::InterpolateScratch scratch;
  aug::stretch_resize(at::view(img), sa::StretchResize{}, at::mview(out), boxes, scratch);
  CHECK(boxes[0].x1 == 2.0f);
  CHECK(boxes[0].x2 == 6.0f);
  CHECK(boxes[0].y1 == 3.0f);
  CHECK(boxes[0].y2 == 6.0f);
  CHECK(boxes[0].class_id == 5);
  CHECK(boxes[1].x2 == 8.0f);
  CHECK(boxes[1].y2 == 9.0f);
  // 39 -> 640: the ratio 16.41... as float32, times 39, is 640.00006, past the canvas:
  // torchvision does not clamp here (SanitizeBoxes then drops such a box).
  aug::Image small = at::make_image(39, 39);
  std::vector<aug::PixelBox> edge{{0, 0, 39, 39, 0}};
  aug::Image square = at::make_image(640, 640);
  aug::stretch_resize(at::view(small), sa::StretchResize{false}, at::mview(square), edge, scratch);
  CHECK(edge[0].x2 > 640.0f);
  CHECK(edge[0].x2 < 640.001f);
  // Same size: boxes untouched.
  std::vector<aug::PixelBox> same{{0.5f, 0.25f, 1.5f, 2.5f, 0}};
  aug::Image copy = at::make_image(4, 3);
  aug::stretch_resize(at::view(img), sa::StretchResize{}, at::mview(copy), same, scratch);
  CHECK(same[0].x1 == 0.5f);
  CHECK(same[0].y2 == 2.5f);
}

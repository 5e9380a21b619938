// Affine matrices and the fixed-point warp: exact on identity and integer shifts, and boxes
// mapped through the matrix bound the warped rectangle's pixels.

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "libreyolo/core/data/augment/affine_matrix.hpp"
#include "libreyolo/core/data/augment/warp_affine.hpp"
#include "libreyolo/core/error.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;

TEST_CASE("affine: inverse and compose give the identity") {
  const aug::Affine2x3 m{1.3, 0.2, 15.0, -0.4, 0.9, -7.0};
  const aug::Affine2x3 id = aug::compose(m.inverse(), m);
  CHECK(id.a == doctest::Approx(1.0));
  CHECK(id.b == doctest::Approx(0.0));
  CHECK(id.c == doctest::Approx(0.0));
  CHECK(id.d == doctest::Approx(0.0));
  CHECK(id.e == doctest::Approx(1.0));
  CHECK(id.f == doctest::Approx(0.0));
  CHECK_THROWS_AS(aug::Affine2x3({1, 2, 0, 2, 4, 0}).inverse(), libreyolo::core::Error);
}

TEST_CASE("affine: transform_box bounds the four corners") {
  const double angle = 30.0 * 3.14159265358979 / 180.0;
  const aug::Affine2x3 rot{std::cos(angle), std::sin(angle), 0, -std::sin(angle),
                           std::cos(angle), 0};
  const aug::PixelBox b = aug::transform_box(rot, {0, 0, 10, 20, 3});
  // Corners (0,0) (10,0) (0,20) (10,20) rotated.
  CHECK(b.x1 == doctest::Approx(0.0).epsilon(1e-5));
  CHECK(b.x2 == doctest::Approx(10 * std::cos(angle) + 20 * std::sin(angle)).epsilon(1e-5));
  CHECK(b.y1 == doctest::Approx(-10 * std::sin(angle)).epsilon(1e-5));
  CHECK(b.y2 == doctest::Approx(20 * std::cos(angle)).epsilon(1e-5));
  CHECK(b.class_id == 3);
}

TEST_CASE("affine: random matrix follows the ranges and the seed") {
  aug::AffineRange fixed;
  fixed.degrees = 0;
  fixed.shear = 0;
  fixed.translate = 0;
  fixed.scale_min = fixed.scale_max = 1.5;
  std::mt19937_64 rng(1);
  const aug::Affine2x3 m = aug::random_affine_matrix(fixed, 640, 640, rng);
  CHECK(m.a == doctest::Approx(1.5));
  CHECK(m.e == doctest::Approx(1.5));
  CHECK(m.b == doctest::Approx(0.0));
  CHECK(m.d == doctest::Approx(0.0));
  CHECK(m.c == doctest::Approx(0.0));
  CHECK(m.f == doctest::Approx(0.0));

  aug::AffineRange range;  // YOLOX: 10 degrees, 0.1 translate, scale 0.1..2, shear 2
  std::mt19937_64 a(42), b(42), c(43);
  const aug::Affine2x3 ma = aug::random_affine_matrix(range, 640, 480, a);
  const aug::Affine2x3 mb = aug::random_affine_matrix(range, 640, 480, b);
  const aug::Affine2x3 mc = aug::random_affine_matrix(range, 640, 480, c);
  CHECK(ma.a == mb.a);
  CHECK(ma.f == mb.f);
  CHECK(ma.a != mc.a);
  for (int i = 0; i < 200; ++i) {
    const aug::Affine2x3 m2 = aug::random_affine_matrix(range, 640, 480, a);
    CHECK(std::abs(m2.c) <= 64.0);
    CHECK(std::abs(m2.f) <= 48.0);
    // Shear of 2 degrees barely changes the area scale: det ~ scale^2.
    const double s = std::sqrt(std::abs(m2.determinant()));
    CHECK(s >= 0.1 * 0.99);
    CHECK(s <= 2.0 * 1.01);
  }
  aug::AffineRange bad;
  bad.scale_min = 0.0;
  CHECK_THROWS_AS(aug::random_affine_matrix(bad, 640, 640, a), libreyolo::core::Error);
}

TEST_CASE("warp: identity is an exact copy and an integer shift moves pixels exactly") {
  const aug::Image src = at::make_noise_image(97, 61, 5);
  aug::WarpScratch scratch;
  aug::Image out = at::make_image(97, 61, {0, 0, 0});
  aug::warp_affine(at::view(src), aug::Affine2x3::identity(), at::mview(out), scratch);
  CHECK(at::same_bytes(src, out));

  aug::Image shifted = at::make_image(97, 61, {0, 0, 0});
  aug::warp_affine(at::view(src), aug::Affine2x3::scale_translate(1, 1, 7, -3),
                   at::mview(shifted), scratch);
  int mismatches = 0;
  for (int y = 0; y < 61; ++y) {
    for (int x = 0; x < 97; ++x) {
      const int sx = x - 7, sy = y + 3;
      for (int ch = 0; ch < 3; ++ch) {
        const int want = (sx >= 0 && sx < 97 && sy >= 0 && sy < 61) ? src.pixel(sx, sy)[ch] : 114;
        mismatches += shifted.pixel(x, y)[ch] != want;
      }
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("warp: bilinear halfway sample is the rounded average") {
  aug::Image src = at::make_image(2, 1, {0, 0, 0});
  src.pixel(1, 0)[0] = 101;
  src.pixel(1, 0)[1] = 255;
  src.pixel(1, 0)[2] = 10;
  aug::WarpScratch scratch;
  aug::Image out = at::make_image(1, 1);
  // Output pixel centre 0.5 maps to source position 1.0 in continuous coordinates, i.e. half
  // way between the two pixel centres (0.5 and 1.5).
  aug::warp_affine(at::view(src), aug::Affine2x3::scale_translate(0.5, 1, 0, 0), at::mview(out),
                   scratch);
  CHECK(int(out.pixel(0, 0)[0]) == 51);  // 50.5 rounds up
  CHECK(int(out.pixel(0, 0)[1]) == 128);
  CHECK(int(out.pixel(0, 0)[2]) == 5);
}

TEST_CASE("warp: the transformed box tightly bounds the warped rectangle") {
  aug::Image src = at::make_image(320, 240);
  const at::Rgb red{230, 20, 20};
  const aug::PixelBox box = at::fill_rect(src, 100, 60, 180, 150, red);
  aug::WarpScratch scratch;
  aug::Image out = at::make_image(320, 240);

  SUBCASE("axis aligned: scale and translate") {
    const aug::Affine2x3 m = aug::Affine2x3::scale_translate(1.37, 0.81, -23.5, 17.25);
    aug::warp_affine(at::view(src), m, at::mview(out), scratch);
    const aug::PixelBox want = aug::transform_box(m, box);
    const at::Found found = at::find_colour(at::view(out), red);
    REQUIRE(found.count > 0);
    CHECK(at::max_edge_difference(found.box, want) <= 1.0f);
  }
  SUBCASE("random YOLOX affines (rotation, scale, shear, translation)") {
    aug::AffineRange range;
    range.degrees = 45;
    range.shear = 10;
    range.scale_min = 0.5;
    range.scale_max = 1.5;
    std::mt19937_64 rng(7);
    for (int i = 0; i < 40; ++i) {
      // Keep the rectangle inside the output: rotate about the image centre.
      const aug::Affine2x3 r = aug::random_affine_matrix(range, 0, 0, rng);
      const aug::Affine2x3 m = aug::compose(aug::Affine2x3::scale_translate(1, 1, 160, 120),
                                            aug::compose(r, aug::Affine2x3::scale_translate(
                                                                1, 1, -160, -120)));
      aug::warp_affine(at::view(src), m, at::mview(out), scratch);
      const aug::PixelBox want = aug::transform_box(m, box);
      const at::Found found = at::find_colour(at::view(out), red);
      REQUIRE(found.count > 0);
      INFO("affine " << i);
      // The box contains every rectangle pixel and is not much larger than their bounds (a
      // rotated rectangle's corners are sharp, so at most ~2 px go below half coverage).
      CHECK(at::contains(want, found.box, 1.0f));
      CHECK(at::max_edge_difference(found.box, want) <= 2.5f);
    }
  }
}

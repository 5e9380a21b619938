// Letterbox: geometry, pixels where the boxes say, top-left padding with 114, and predictions
// mapped back to original pixels.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "libreyolo/core/data/augment/letterbox.hpp"
#include "libreyolo/core/data/augment/resize_bilinear.hpp"
#include "libreyolo/core/error.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;

TEST_CASE("letterbox: geometry like LibreYOLO's preproc") {
  const aug::LetterboxInfo wide = aug::letterbox_info({1000, 500}, 640);
  CHECK(wide.scale == doctest::Approx(0.64f));
  CHECK(wide.content_width == 640);
  CHECK(wide.content_height == 320);
  CHECK(wide.pad_x == 0);
  CHECK(wide.pad_y == 0);
  const aug::LetterboxInfo tall = aug::letterbox_info({333, 1000}, 640);
  CHECK(tall.content_height == 640);
  CHECK(tall.content_width == 213);  // int(333 * 0.64) = int(213.12)
  const aug::LetterboxInfo centred = aug::letterbox_info({333, 1000}, 640, aug::LetterboxPad::centre);
  CHECK(centred.pad_x == (640 - 213) / 2);
  CHECK(centred.pad_y == 0);
  const aug::LetterboxInfo small = aug::letterbox_info({100, 50}, 640);  // enlarged
  CHECK(small.content_width == 640);
  CHECK(small.content_height == 320);
  CHECK_THROWS_AS(aug::letterbox_info({0, 10}, 640), libreyolo::core::Error);
}

TEST_CASE("letterbox: rectangle pixels land on the mapped box, padding is 114") {
  for (const aug::LetterboxPad pad : {aug::LetterboxPad::top_left, aug::LetterboxPad::centre}) {
    aug::Image src = at::make_image(900, 500);
    const at::Rgb c{235, 225, 20};
    const aug::PixelBox box = at::fill_rect(src, 300, 100, 620, 333, c, 1);
    aug::Image out = at::make_image(320, 320, {0, 0, 0});
    const aug::LetterboxInfo info = aug::letterbox(at::view(src), 320, at::mview(out), pad);
    const aug::PixelBox mapped = aug::to_letterbox(box, info);
    const at::Found found = at::find_colour(at::view(out), c);
    REQUIRE(found.count > 0);
    CHECK(at::max_edge_difference(found.box, mapped) <= 1.0f);
    // Padding rows: the bottom for top-left, top and bottom when centred.
    const int content_bottom = info.pad_y + info.content_height;
    CHECK(content_bottom == (pad == aug::LetterboxPad::top_left ? 177 : 71 + 177));
    for (int x = 0; x < 320; ++x) {
      CHECK_EQ(int(out.pixel(x, content_bottom)[0]), 114);
      CHECK_EQ(int(out.pixel(x, 319)[2]), 114);
      if (pad == aug::LetterboxPad::centre) CHECK_EQ(int(out.pixel(x, 0)[1]), 114);
    }
    CHECK_EQ(int(out.pixel(0, info.pad_y)[0]), 114);  // original background is grey too
  }
}

TEST_CASE("letterbox: an image already at imgsz is copied exactly") {
  const aug::Image src = at::make_noise_image(640, 427, 2);
  aug::Image out = at::make_image(640, 640, {0, 0, 0});
  const aug::LetterboxInfo info = aug::letterbox(at::view(src), 640, at::mview(out));
  CHECK(info.scale == doctest::Approx(1.0f));
  CHECK(info.content_height == 427);
  CHECK(std::equal(src.pixels.begin(), src.pixels.end(), out.pixels.begin()));
  CHECK(int(out.pixel(5, 427)[0]) == 114);
}

TEST_CASE("letterbox: box mapping round-trips and clips to the original image") {
  const aug::ImageSize original{1280, 720};
  for (const aug::LetterboxPad pad : {aug::LetterboxPad::top_left, aug::LetterboxPad::centre}) {
    const aug::LetterboxInfo info = aug::letterbox_info(original, 640, pad);
    const aug::PixelBox b{13.5f, 200.25f, 1000.0f, 719.0f, 7};
    const aug::PixelBox back = aug::from_letterbox(aug::to_letterbox(b, info), info, original);
    CHECK(back.x1 == doctest::Approx(b.x1).epsilon(1e-4));
    CHECK(back.y1 == doctest::Approx(b.y1).epsilon(1e-4));
    CHECK(back.x2 == doctest::Approx(b.x2).epsilon(1e-4));
    CHECK(back.y2 == doctest::Approx(b.y2).epsilon(1e-4));
    CHECK(back.class_id == 7);
    // A prediction reaching into the padding is clipped to the original image.
    const aug::PixelBox clipped = aug::from_letterbox({-5, -5, 640, 640, 0}, info, original);
    CHECK(clipped.x1 == 0.0f);
    CHECK(clipped.y1 == 0.0f);
    CHECK(clipped.x2 == 1280.0f);
    CHECK(clipped.y2 == 720.0f);
  }
}

TEST_CASE("letterbox: a wrong output size is refused") {
  const aug::Image src = at::make_image(10, 10);
  aug::Image out = at::make_image(32, 16);
  CHECK_THROWS_AS(aug::letterbox(at::view(src), 32, at::mview(out)), libreyolo::core::Error);
}

TEST_CASE("resize: matches a float INTER_LINEAR reference, windows and mirror included") {
  const aug::Image src = at::make_noise_image(173, 91, 12);
  // Float reference: OpenCV INTER_LINEAR geometry, edges replicated.
  auto reference = [&](int full_w, int full_h, bool mirror, int x, int y, int ch) {
    auto axis = [](int o, int in, int out, double& frac) {
      double pos = (o + 0.5) * in / out - 0.5;
      int lo = static_cast<int>(std::floor(pos));
      frac = pos - lo;
      if (lo < 0) { lo = 0; frac = 0; }
      if (lo >= in - 1) { lo = in - 1; frac = 0; }
      return lo;
    };
    double fx = 0, fy = 0;
    const int ox = mirror ? full_w - 1 - x : x;
    const int x0 = axis(ox, src.width, full_w, fx), y0 = axis(y, src.height, full_h, fy);
    const int x1 = std::min(x0 + 1, src.width - 1), y1 = std::min(y0 + 1, src.height - 1);
    const double top = src.pixel(x0, y0)[ch] * (1 - fx) + src.pixel(x1, y0)[ch] * fx;
    const double bottom = src.pixel(x0, y1)[ch] * (1 - fx) + src.pixel(x1, y1)[ch] * fx;
    return top * (1 - fy) + bottom * fy;
  };
  aug::ResizeScratch scratch;
  struct Case { int full_w, full_h; bool mirror; int x0, y0, w, h; };
  for (const Case c : {Case{300, 200, false, 0, 0, 300, 200}, Case{80, 40, false, 0, 0, 80, 40},
                       Case{173, 91, true, 0, 0, 173, 91}, Case{250, 130, true, 37, 21, 150, 100},
                       Case{90, 300, false, 10, 250, 80, 50}}) {
    aug::Image out = at::make_image(c.w, c.h, {0, 0, 0});
    aug::resize_bilinear_window(at::view(src), c.full_w, c.full_h, c.mirror, c.x0, c.y0,
                                at::mview(out), scratch);
    double worst = 0;
    for (int y = 0; y < c.h; ++y) {
      for (int x = 0; x < c.w; ++x) {
        for (int ch = 0; ch < 3; ++ch) {
          worst = std::max(worst, std::abs(out.pixel(x, y)[ch] -
                                           reference(c.full_w, c.full_h, c.mirror, c.x0 + x,
                                                     c.y0 + y, ch)));
        }
      }
    }
    INFO("full " << c.full_w << "x" << c.full_h << " mirror " << c.mirror);
    CHECK(worst <= 0.75);  // rounding plus 11-bit weights
  }
}

// Mixup: YOLOX's jittered paste (50/50 with black outside the pasted square) and yolo9's blend.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "libreyolo/core/data/augment/letterbox.hpp"
#include "libreyolo/core/data/augment/mixup.hpp"
#include "libreyolo/core/data/augment/random.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;

TEST_CASE("mixup: jitter scale 1 without mirror is the rounded-down average") {
  const aug::Image other = at::make_noise_image(320, 200, 4);
  aug::Image out = at::make_noise_image(320, 320, 5);
  const aug::Image before = out;
  std::vector<aug::PixelBox> boxes{{1, 2, 3, 4, 0}};
  aug::MixupScratch scratch;
  aug::mixup_yolox(at::view(other), {{10, 20, 110, 120, 5}}, {1.0, false, 0, 0}, at::mview(out),
                   boxes, scratch);
  int wrong = 0;
  for (int y = 0; y < 320; ++y) {
    for (int x = 0; x < 320; ++x) {
      for (int ch = 0; ch < 3; ++ch) {
        const int b = y < 200 ? other.pixel(x, y)[ch] : 114;  // letterbox padding below
        wrong += out.pixel(x, y)[ch] != ((before.pixel(x, y)[ch] + b) >> 1);
      }
    }
  }
  CHECK(wrong == 0);
  REQUIRE(boxes.size() == 2);
  CHECK(boxes[1].x1 == doctest::Approx(10.0f));
  CHECK(boxes[1].y2 == doctest::Approx(120.0f));
  CHECK(boxes[1].class_id == 5);
}

TEST_CASE("mixup: the pasted rectangle keeps a tight box under jitter, mirror and crop") {
  const at::Rgb c{20, 225, 230};
  // Mixed 50/50 with a grey mosaic, the rectangle's colour becomes the average.
  const at::Rgb mixed{static_cast<std::uint8_t>((114 + c.r) / 2),
                      static_cast<std::uint8_t>((114 + c.g) / 2),
                      static_cast<std::uint8_t>((114 + c.b) / 2)};
  aug::Image other = at::make_image(320, 240);
  const aug::PixelBox box = at::fill_rect(other, 150, 60, 290, 200, c, 3);
  std::mt19937_64 rng(8);
  aug::MixupScratch scratch;
  for (int round = 0; round < 20; ++round) {
    const aug::MixupJitter jitter = aug::random_mixup_jitter(320, 0.5, 1.5, rng);
    aug::Image out = at::make_image(320, 320);
    std::vector<aug::PixelBox> boxes;
    aug::mixup_yolox(at::view(other), {box}, jitter, at::mview(out), boxes, scratch);
    INFO("round " << round << " scale " << jitter.scale << " mirror " << jitter.mirror
                  << " offsets " << jitter.x_offset << "," << jitter.y_offset);
    // Where the paste ends, the output is half of grey (blended with YOLOX's black canvas).
    const int side = static_cast<int>(320 * jitter.scale);
    if (side < 320) CHECK(int(out.pixel(319, 319)[0]) == 57);
    const at::Found found = at::find_colour(at::view(out), mixed);
    if (boxes.empty()) {
      CHECK(found.count == 0);
      continue;
    }
    REQUIRE(found.count > 0);
    CHECK(boxes[0].class_id == 3);
    CHECK(at::max_edge_difference(found.box, boxes[0]) <= 1.5f);
  }
}

TEST_CASE("mixup: yolo9's blend weights the two images by the ratio") {
  aug::Image a = at::make_image(8, 8, {200, 100, 0});
  const aug::Image b = at::make_image(8, 8, {0, 50, 255});
  std::vector<aug::PixelBox> boxes{{0, 0, 4, 4, 1}};
  aug::mixup_blend(at::view(b), {{2, 2, 6, 6, 2}}, 0.25, at::mview(a), boxes);
  CHECK(int(a.pixels[0]) == 50);    // 0.25 * 200
  CHECK(int(a.pixels[1]) == 63);    // 25 + 37.5 = 62.5 -> 63
  CHECK(int(a.pixels[2]) == 191);   // 0.75 * 255 = 191.25
  REQUIRE(boxes.size() == 2);
  CHECK(boxes[1].class_id == 2);
  double mean = 0;
  std::mt19937_64 rng(2);
  for (int i = 0; i < 2000; ++i) mean += aug::beta_sample(rng, 32, 32);
  mean /= 2000;
  CHECK(mean == doctest::Approx(0.5).epsilon(0.02));
}

TEST_CASE("mixup: equals letterbox, jittered resize and floor average done one after another") {
  // mixup_yolox reads the letterbox padding virtually and averages rows as it resizes them;
  // the reference materialises every step. Images not at the letterbox size are resized first.
  const int imgsz = 160;
  aug::ResizeScratch resize;
  aug::MixupScratch scratch;
  std::mt19937_64 rng(21);
  for (const aug::Image& other :
       {at::make_noise_image(160, 100, 1), at::make_noise_image(90, 160, 2),
        at::make_noise_image(57, 41, 3), at::make_noise_image(300, 220, 4)}) {
    for (int round = 0; round < 6; ++round) {
      const aug::MixupJitter jitter = aug::random_mixup_jitter(imgsz, 0.5, 1.5, rng);
      const aug::Image before =
          at::make_noise_image(imgsz, imgsz, static_cast<std::uint64_t>(round));
      aug::Image out = before;
      std::vector<aug::PixelBox> boxes;
      aug::mixup_yolox(at::view(other), {}, jitter, at::mview(out), boxes, scratch);

      aug::Image square = at::make_image(imgsz, imgsz);
      aug::letterbox(at::view(other), imgsz, at::mview(square), aug::LetterboxPad::top_left,
                     resize);
      const int side = static_cast<int>(std::floor(imgsz * jitter.scale + 1e-9));
      aug::Image jittered = at::make_image(imgsz, imgsz, {0, 0, 0});  // YOLOX's zeros
      const int w = std::clamp(side - jitter.x_offset, 0, imgsz);
      const int h = std::clamp(side - jitter.y_offset, 0, imgsz);
      aug::resize_bilinear_window(at::view(square), side, side, jitter.mirror, jitter.x_offset,
                                  jitter.y_offset, w, h, jittered.pixels.data(),
                                  static_cast<std::size_t>(imgsz) * 3, resize);
      int wrong = 0;
      for (std::size_t i = 0; i < out.pixels.size(); ++i) {
        wrong += out.pixels[i] != ((before.pixels[i] + jittered.pixels[i]) >> 1);
      }
      INFO("other " << other.width << "x" << other.height << " scale " << jitter.scale
                    << " mirror " << jitter.mirror << " offsets " << jitter.x_offset << ","
                    << jitter.y_offset);
      CHECK(wrong == 0);
    }
  }
}

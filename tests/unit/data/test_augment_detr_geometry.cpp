// torchvision's RandomZoomOut, RandomIoUCrop and SanitizeBoundingBoxes: hand-computed canvases,
// crops and boxes on tiny images, and the draws' semantics over many seeded draws.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "libreyolo/core/data/augment/iou_crop.hpp"
#include "libreyolo/core/data/augment/sanitize_boxes.hpp"
#include "libreyolo/core/data/augment/zoom_out.hpp"
#include "libreyolo/core/error.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;
namespace sa = libreyolo::sdk::augment;

namespace {

// 4x3 image whose pixel (x, y) is (10 x + y, 100 + y, 200).
aug::Image labelled_image() {
  aug::Image img = at::make_image(4, 3);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 4; ++x) {
      std::uint8_t* p = img.pixel(x, y);
      p[0] = static_cast<std::uint8_t>(10 * x + y);
      p[1] = static_cast<std::uint8_t>(100 + y);
      p[2] = 200;
    }
  }
  return img;
}

bool same_box(const aug::PixelBox& a, const aug::PixelBox& b) {
  return a.x1 == b.x1 && a.y1 == b.y1 && a.x2 == b.x2 && a.y2 == b.y2 && a.class_id == b.class_id;
}

}  // namespace

TEST_CASE("detr zoom out: the image lands at (left, top) on a filled canvas, boxes follow") {
  const aug::Image img = labelled_image();
  aug::ZoomOutParams params;
  params.applied = true;
  params.canvas_width = 7;
  params.canvas_height = 5;
  params.left = 2;
  params.top = 1;
  params.fill = 9;
  // The third box starts left of the image: shifted to (-1, 1, 4, 2), clamped to the canvas
  // (torchvision's pad clamps) -> (0, 1, 4, 2).
  std::vector<aug::PixelBox> boxes{{0, 0, 4, 3, 1}, {1.5f, 0.5f, 2.5f, 2.0f, 2}, {-3, 0, 2, 1, 3}};
  aug::Image out;
  aug::apply_zoom_out(at::view(img), params, out, boxes);
  REQUIRE(out.width == 7);
  REQUIRE(out.height == 5);
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 7; ++x) {
      const bool inside = x >= 2 && x < 6 && y >= 1 && y < 4;
      const std::uint8_t* p = out.pixel(x, y);
      INFO("pixel " << x << ", " << y);
      if (inside) {
        CHECK(std::equal(p, p + 3, img.pixel(x - 2, y - 1)));
      } else {
        CHECK((p[0] == 9 && p[1] == 9 && p[2] == 9));
      }
    }
  }
  CHECK(same_box(boxes[0], {2, 1, 6, 4, 1}));
  CHECK(same_box(boxes[1], {3.5f, 1.5f, 4.5f, 3.0f, 2}));
  CHECK(same_box(boxes[2], {0, 1, 4, 2, 3}));
  // Not applied: a copy, boxes unchanged.
  params.applied = false;
  std::vector<aug::PixelBox> kept{{1, 1, 2, 2, 0}};
  aug::apply_zoom_out(at::view(img), params, out, kept);
  CHECK(at::same_bytes(out, img));
  CHECK(same_box(kept[0], {1, 1, 2, 2, 0}));
  // Parameters drawn for another image are refused, not read out of bounds.
  params.applied = true;
  params.canvas_width = 5;
  CHECK_THROWS_AS(aug::apply_zoom_out(at::view(img), params, out, kept), libreyolo::core::Error);
}

TEST_CASE("detr zoom out: canvas ratios in the side range, offsets inside, prob honoured") {
  sa::ZoomOut config;  // fill 0, side (1, 4), p 0.5
  std::mt19937_64 rng(17);
  const aug::ImageSize size{640, 480};
  constexpr int kDraws = 20000;
  int applied = 0;
  double lo = 9, hi = 0;
  for (int k = 0; k < kDraws; ++k) {
    const aug::ZoomOutParams p = aug::draw_zoom_out(config, size, 2, rng);
    if (!p.applied) {
      CHECK(p.canvas_width == 640);
      continue;
    }
    ++applied;
    const double rw = static_cast<double>(p.canvas_width) / size.width;
    const double rh = static_cast<double>(p.canvas_height) / size.height;
    lo = std::min(lo, rw);
    hi = std::max(hi, rw);
    // One r for both sides: the canvas keeps the aspect ratio up to the truncation.
    CHECK(std::abs(rw - rh) < 1.0 / size.height + 1e-9);
    CHECK(rw >= 1.0);
    CHECK(rw < 4.0);
    CHECK(p.left >= 0);
    CHECK(p.top >= 0);
    CHECK(p.left + size.width <= p.canvas_width);
    CHECK(p.top + size.height <= p.canvas_height);
  }
  CHECK(std::abs(applied - kDraws / 2) < 355);  // 5 sd of Binomial(20000, 0.5), fixed seed
  CHECK(lo < 1.01);
  CHECK(hi > 3.99);
  // Canvas = int(w * r): for a 1x1 image r < 4 gives at most 3 extra pixels.
  for (int k = 0; k < 200; ++k) {
    const aug::ZoomOutParams p = aug::draw_zoom_out(config, {1, 1}, 1, rng);
    CHECK(p.canvas_width <= 3);
    CHECK(p.left <= p.canvas_width - 1);
  }
}

TEST_CASE("detr zoom out: skip_without_boxes, prob 0 and 1, bad configs") {
  sa::ZoomOut config;
  config.skip_without_boxes = true;
  std::mt19937_64 rng(3);
  std::mt19937_64 copy = rng;
  CHECK_FALSE(aug::draw_zoom_out(config, {10, 10}, 0, rng).applied);
  CHECK(rng() == copy());  // nothing drawn
  config.prob = 1.0;
  for (int k = 0; k < 50; ++k) CHECK(aug::draw_zoom_out(config, {10, 10}, 1, rng).applied);
  config.prob = 0.0;
  for (int k = 0; k < 50; ++k) CHECK_FALSE(aug::draw_zoom_out(config, {10, 10}, 1, rng).applied);
  sa::ZoomOut bad;
  bad.side = {0.5, 2.0};
  CHECK_THROWS_AS(aug::draw_zoom_out(bad, {10, 10}, 1, rng), libreyolo::core::Error);
  bad = {};
  bad.fill = 300;
  CHECK_THROWS_AS(aug::draw_zoom_out(bad, {10, 10}, 1, rng), libreyolo::core::Error);
}

TEST_CASE("detr iou crop: the crop of pixels and boxes, outside centres zeroed") {
  const aug::Image img = labelled_image();
  aug::IoUCropParams params;
  params.applied = true;
  params.left = 1;
  params.top = 1;
  params.width = 2;
  params.height = 2;
  // Crop (1, 1)-(3, 3). Box 0 straddles it (centre (2, 1.5) inside): shifted by (1, 1) to
  // (-1, -1, 3, 2), then clamped to [0, 2]: (0, 0, 2, 2). Box 1's centre (0.5, 0.5) is outside: all
  // zero. Box 2 is inside: (1.5, 1.25, 2.5, 2.75) -> (0.5, 0.25, 1.5, 1.75).
  std::vector<aug::PixelBox> boxes{{0, 0, 4, 3, 7}, {0, 0, 1, 1, 8}, {1.5f, 1.25f, 2.5f, 2.75f, 9}};
  aug::Image out;
  aug::apply_iou_crop(at::view(img), params, out, boxes);
  REQUIRE(out.width == 2);
  REQUIRE(out.height == 2);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 2; ++x)
      CHECK(std::equal(out.pixel(x, y), out.pixel(x, y) + 3, img.pixel(x + 1, y + 1)));
  }
  CHECK(same_box(boxes[0], {0, 0, 2, 2, 7}));
  CHECK(same_box(boxes[1], {0, 0, 0, 0, 8}));
  CHECK(same_box(boxes[2], {0.5f, 0.25f, 1.5f, 1.75f, 9}));
  aug::IoUCropParams outside = params;
  outside.left = 3;
  std::vector<aug::PixelBox> unused;
  CHECK_THROWS_AS(aug::apply_iou_crop(at::view(img), outside, out, unused), libreyolo::core::Error);
  // SanitizeBoxes then drops the zeroed box (and only it).
  aug::sanitize_boxes(boxes, {2, 2}, sa::SanitizeBoxes{});
  REQUIRE(boxes.size() == 2);
  CHECK(boxes[0].class_id == 7);
  CHECK(boxes[1].class_id == 9);
}

TEST_CASE("detr iou crop: centre test and IoU in torchvision's float32 terms") {
  // Strictly inside: a centre on the crop's edge is out.
  CHECK(aug::centre_inside({0, 0, 4, 4, 0}, 1, 1, 5, 5));        // centre (2, 2)
  CHECK_FALSE(aug::centre_inside({0, 0, 2, 2, 0}, 1, 1, 5, 5));  // centre (1, 1) on the edge
  CHECK_FALSE(aug::centre_inside({4, 4, 6, 6, 0}, 1, 1, 5, 5));  // centre (5, 5) on the edge
  // Box (0, 0, 4, 4) vs crop (2, 2, 6, 6): intersection 4, union 16 + 16 - 4 = 28.
  CHECK(aug::iou_with_crop({0, 0, 4, 4, 0}, 2, 2, 6, 6) == doctest::Approx(4.0 / 28.0));
  CHECK(aug::iou_with_crop({2, 2, 6, 6, 0}, 2, 2, 6, 6) == 1.0f);
  CHECK(aug::iou_with_crop({0, 0, 1, 1, 0}, 2, 2, 6, 6) == 0.0f);
}

TEST_CASE("detr iou crop: each accepted crop meets its option's constraints") {
  sa::IoUCrop config;  // torchvision's defaults, prob 1
  std::mt19937_64 rng(8);
  const aug::ImageSize size{500, 375};
  const std::vector<aug::PixelBox> boxes{
      {100, 80, 180, 200, 0}, {300, 40, 480, 300, 1}, {20, 300, 60, 360, 2}};
  constexpr int kDraws = 4000;
  int cropped = 0;
  std::vector<int> by_option(7, 0);
  for (int k = 0; k < kDraws; ++k) {
    const aug::IoUCropParams p = aug::draw_iou_crop(config, size, boxes, rng);
    if (!p.applied) continue;
    ++cropped;
    INFO("draw " << k);
    const int right = p.left + p.width, bottom = p.top + p.height;
    // Sides int(side * r) for r in [0.3, 1), aspect in [0.5, 2], inside the image.
    CHECK(p.width >= static_cast<int>(0.3f * 500) - 1);
    CHECK(p.width < 500);
    CHECK(p.height >= static_cast<int>(0.3f * 375) - 1);
    CHECK(p.height < 375);
    const double aspect = static_cast<double>(p.width) / p.height;
    CHECK(aspect >= 0.5);
    CHECK(aspect <= 2.0);
    CHECK(p.left >= 0);
    CHECK(p.top >= 0);
    CHECK(right <= 500);
    CHECK(bottom <= 375);
    CHECK(p.min_iou < 1.0);
    // Some centre inside, and the best IoU of those boxes reaches the option.
    float best = -1.0f;
    for (const aug::PixelBox& b : boxes) {
      if (aug::centre_inside(b, p.left, p.top, right, bottom)) {
        best = std::max(best, aug::iou_with_crop(b, p.left, p.top, right, bottom));
      }
    }
    CHECK(best >= static_cast<float>(p.min_iou));
    const auto option =
        std::find(config.sampler_options.begin(), config.sampler_options.end(), p.min_iou);
    REQUIRE(option != config.sampler_options.end());
    ++by_option[static_cast<std::size_t>(option - config.sampler_options.begin())];
  }
  // Option 1.0 (no crop) is drawn first 1/7 of the time; crops for 0.0 and 0.1 come easily.
  CHECK(kDraws - cropped > kDraws / 7 - 100);
  CHECK(by_option[0] > 300);
  CHECK(by_option[6] == 0);
}

TEST_CASE("detr iou crop: option 1.0 and prob 0 leave the sample, degenerate inputs are safe") {
  std::mt19937_64 rng(4);
  const std::vector<aug::PixelBox> boxes{{10, 10, 50, 50, 0}};
  sa::IoUCrop only_no_crop;
  only_no_crop.sampler_options = {1.0};
  for (int k = 0; k < 50; ++k)
    CHECK_FALSE(aug::draw_iou_crop(only_no_crop, {100, 100}, boxes, rng).applied);
  sa::IoUCrop never;
  never.prob = 0.0;
  for (int k = 0; k < 50; ++k)
    CHECK_FALSE(aug::draw_iou_crop(never, {100, 100}, boxes, rng).applied);
  // prob 0.8: ~80% of the draws get past RandomApply, then 1/7 of those pick "no crop" first.
  sa::IoUCrop wrapped;
  wrapped.prob = 0.8;
  wrapped.sampler_options = {0.0};
  int applied = 0;
  for (int k = 0; k < 10000; ++k)
    applied += aug::draw_iou_crop(wrapped, {100, 100}, boxes, rng).applied;
  CHECK(std::abs(applied - 8000) < 200);  // 5 sd of Binomial(10000, 0.8) is 200
  // No boxes: no crop, with or without skip_without_boxes. A 1x1 or 2x2 image: crops of side 0
  // are retried (torchvision would divide by zero), never a crash or a hang.
  sa::IoUCrop config;
  CHECK_FALSE(aug::draw_iou_crop(config, {100, 100}, {}, rng).applied);
  config.skip_without_boxes = true;
  std::mt19937_64 copy = rng;
  CHECK_FALSE(aug::draw_iou_crop(config, {100, 100}, {}, rng).applied);
  CHECK(rng() == copy());
  sa::IoUCrop any;
  any.sampler_options = {0.0};  // no "no crop" option: the bounded loop must end
  for (const int side : {1, 2, 3}) {
    const aug::IoUCropParams p = aug::draw_iou_crop(
        any, {side, side}, {{0, 0, static_cast<float>(side), static_cast<float>(side), 0}}, rng);
    if (p.applied) {
      CHECK(p.width >= 1);
      CHECK(p.height >= 1);
    }
  }
  sa::IoUCrop bad;
  bad.sampler_options.clear();
  CHECK_THROWS_AS(aug::draw_iou_crop(bad, {10, 10}, boxes, rng), libreyolo::core::Error);
  bad = {};
  bad.max_scale = 1.5;
  CHECK_THROWS_AS(aug::draw_iou_crop(bad, {10, 10}, boxes, rng), libreyolo::core::Error);
}

TEST_CASE("detr sanitize boxes: torchvision's tests, one box each") {
  const aug::ImageSize canvas{10, 8};
  const std::vector<aug::PixelBox> boxes{
      {1, 1, 3, 3, 0},      // kept
      {1, 1, 1.5f, 5, 1},   // width 0.5 < 1
      {1, 1, 5, 1.9f, 2},   // height 0.9 < 1
      {1, 1, 2, 2, 3},      // 1 x 1: kept (>=)
      {-0.1f, 1, 3, 3, 4},  // negative coordinate
      {5, 5, 10, 8, 5},     // on the canvas edge: kept
      {5, 5, 10.5f, 7, 6},  // x2 past the width
      {5, 5, 7, 8.01f, 7},  // y2 past the height
      {0, 0, 0, 0, 8},      // zeroed by IoUCrop
      {1, 1, NAN, 3, 9},    // NaN
      {3, 3, 1, 1, 10},     // inverted
  };
  std::vector<aug::PixelBox> kept = boxes;
  aug::sanitize_boxes(kept, canvas, sa::SanitizeBoxes{});
  std::vector<int> ids;
  for (const aug::PixelBox& b : kept) ids.push_back(b.class_id);
  CHECK(ids == std::vector<int>{0, 3, 5});
  // min_area (torchvision's default 1): 3 x 0.3 passes min_size 0.25 but its area 0.9 does
  // not; with min_area 0.5 it stays.
  std::vector<aug::PixelBox> thin{{0, 0, 3, 0.3f, 0}};
  aug::sanitize_boxes(thin, canvas, sa::SanitizeBoxes{0.25});
  CHECK(thin.empty());
  thin = {{0, 0, 3, 0.3f, 0}};
  aug::sanitize_boxes(thin, canvas, sa::SanitizeBoxes{0.25}, 0.5f);
  CHECK(thin.size() == 1);
}

TEST_CASE("detr geometry: the same seed gives the same bytes through zoom out and crop") {
  const aug::Image img = at::make_noise_image(64, 48, 6);
  const std::vector<aug::PixelBox> boxes{{10, 10, 30, 40, 0}, {40, 5, 60, 20, 1}};
  auto run = [&](std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    sa::ZoomOut zoom;
    zoom.prob = 1.0;
    std::vector<aug::PixelBox> b = boxes;
    aug::Image canvas, crop;
    aug::apply_zoom_out(at::view(img), aug::draw_zoom_out(zoom, {64, 48}, b.size(), rng), canvas,
                        b);
    aug::apply_iou_crop(at::view(canvas),
                        aug::draw_iou_crop(sa::IoUCrop{}, {canvas.width, canvas.height}, b, rng),
                        crop, b);
    return std::make_pair(crop, b);
  };
  const auto a = run(5), again = run(5), other = run(6);
  CHECK(at::same_bytes(a.first, again.first));
  REQUIRE(a.second.size() == again.second.size());
  for (std::size_t i = 0; i < a.second.size(); ++i) CHECK(same_box(a.second[i], again.second[i]));
  CHECK_FALSE(at::same_bytes(a.first, other.first));
}

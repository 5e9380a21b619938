// Mosaic: warping straight from the four tiles gives the bytes of a materialised 2x canvas, and
// boxes follow their rectangles through placement and warp.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "libreyolo/core/data/augment/mosaic.hpp"
#include "libreyolo/core/data/augment/random.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;

namespace {

// The canvas the way LibreYOLO builds it: 2*imgsz square of 114 with the tiles copied in.
aug::Image materialise(const aug::TiledCanvas& canvas) {
  aug::Image img = at::make_image(canvas.width, canvas.height);
  for (const aug::CanvasTile& t : canvas.tiles) {
    for (int y = t.y0; y < t.y1; ++y) {
      std::memcpy(img.pixel(t.x0, y),
                  t.image.pixels +
                      (static_cast<std::size_t>(y - t.origin_y) * t.image.width + (t.x0 - t.origin_x)) * 3,
                  static_cast<std::size_t>(t.x1 - t.x0) * 3);
    }
  }
  return img;
}

// The warp's definition one pixel at a time: 16.16 positions (row term plus column term, each
// rounded on its own), the four neighbours looked up on the canvas (114 where no tile shows),
// 11-bit bilinear weights.
aug::Image reference_warp(const aug::TiledCanvas& canvas, const aug::Affine2x3& m, int size) {
  const aug::Affine2x3 inv = m.inverse();
  const double one = 65536.0;
  const double cx = inv.a * 0.5 + inv.b * 0.5 + inv.c - 0.5;
  const double cy = inv.d * 0.5 + inv.e * 0.5 + inv.f - 0.5;
  const std::uint8_t grey[3] = {114, 114, 114};
  aug::Image out = at::make_image(size, size);
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const std::int64_t sx =
          std::llround((inv.b * y + cx) * one) + std::llround(inv.a * x * one);
      const std::int64_t sy =
          std::llround((inv.e * y + cy) * one) + std::llround(inv.d * x * one);
      const int ix = static_cast<int>(std::floor(sx / one));
      const int iy = static_cast<int>(std::floor(sy / one));
      const int fx = static_cast<int>(((sx % 65536 + 65536) % 65536) >> 5);
      const int fy = static_cast<int>(((sy % 65536 + 65536) % 65536) >> 5);
      auto at_canvas = [&](int px, int py) {
        const bool outside = px < 0 || py < 0 || px >= canvas.width || py >= canvas.height;
        const std::uint8_t* p = outside ? nullptr : canvas.pixel(px, py);
        return p ? p : grey;
      };
      const std::uint8_t* n[4] = {at_canvas(ix, iy), at_canvas(ix + 1, iy), at_canvas(ix, iy + 1),
                                  at_canvas(ix + 1, iy + 1)};
      const int w[4] = {(2048 - fx) * (2048 - fy), fx * (2048 - fy), (2048 - fx) * fy, fx * fy};
      for (int ch = 0; ch < 3; ++ch) {
        const int sum = n[0][ch] * w[0] + n[1][ch] * w[1] + n[2][ch] * w[2] + n[3][ch] * w[3];
        out.pixel(x, y)[ch] = static_cast<std::uint8_t>((sum + (1 << 21)) >> 22);
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("mosaic: tiles sit around the centre, cropped at the canvas edge") {
  const aug::Image a = at::make_image(640, 480), b = at::make_image(300, 640),
                   c = at::make_image(640, 640), d = at::make_image(500, 200);
  const aug::ImageView tiles[4] = {at::view(a), at::view(b), at::view(c), at::view(d)};
  const aug::TiledCanvas canvas = aug::mosaic_canvas(640, {400, 900}, tiles);
  CHECK(canvas.width == 1280);
  // Top-left ends at the centre.
  CHECK(canvas.tiles[0].origin_x == 400 - 640);
  CHECK(canvas.tiles[0].origin_y == 900 - 480);
  CHECK(canvas.tiles[0].x0 == 0);
  CHECK(canvas.tiles[0].x1 == 400);
  // Top-right starts at the centre.
  CHECK(canvas.tiles[1].origin_x == 400);
  CHECK(canvas.tiles[1].x1 == 700);
  CHECK(canvas.tiles[1].y0 == 900 - 640);
  // Bottom tiles are cropped at the bottom edge.
  CHECK(canvas.tiles[2].y1 == 1280);
  CHECK(canvas.tiles[3].y1 == 1100);
  CHECK(canvas.tiles[3].x1 == 900);
}

TEST_CASE("mosaic: direct warp equals warping a materialised canvas, byte for byte") {
  std::mt19937_64 rng(11);
  aug::WarpScratch scratch;
  for (int round = 0; round < 12; ++round) {
    const int imgsz = 160;
    aug::Image imgs[4];
    aug::ImageView tiles[4];
    for (int i = 0; i < 4; ++i) {
      // Long side imgsz, random short side; sometimes a small tile.
      const int shorter = aug::uniform_int(rng, 20, imgsz);
      const bool wide = aug::chance(rng, 0.5);
      imgs[i] = at::make_noise_image(wide ? imgsz : shorter, wide ? shorter : imgsz,
                                     rng());
      tiles[i] = at::view(imgs[i]);
    }
    const aug::MosaicCentre centre = aug::random_mosaic_centre(imgsz, 0.5, 1.5, rng);
    const aug::TiledCanvas canvas = aug::mosaic_canvas(imgsz, centre, tiles);
    const aug::Image flat = materialise(canvas);
    aug::AffineRange range;
    range.degrees = 30;
    range.shear = 5;
    const aug::Affine2x3 m = round % 3 == 0 ? aug::mosaic_half_resize()
                                            : aug::random_affine_matrix(range, imgsz, imgsz, rng);
    aug::Image direct = at::make_image(imgsz, imgsz, {1, 2, 3});
    aug::Image reference = at::make_image(imgsz, imgsz, {4, 5, 6});
    aug::warp_affine(canvas, m, at::mview(direct), scratch);
    aug::warp_affine(at::view(flat), m, at::mview(reference), scratch);
    INFO("round " << round);
    CHECK(at::same_bytes(direct, reference));
  }
}

TEST_CASE("mosaic: yolo9's half resize is the 2x2 average of the canvas") {
  aug::Image tile = at::make_noise_image(64, 64, 3);
  const aug::ImageView tiles[4] = {at::view(tile), at::view(tile), at::view(tile), at::view(tile)};
  const aug::TiledCanvas canvas = aug::mosaic_canvas(64, {64, 64}, tiles);
  const aug::Image flat = materialise(canvas);
  aug::Image out = at::make_image(64, 64);
  aug::WarpScratch scratch;
  aug::warp_affine(canvas, aug::mosaic_half_resize(), at::mview(out), scratch);
  int worst = 0;
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      for (int ch = 0; ch < 3; ++ch) {
        const int sum = flat.pixel(2 * x, 2 * y)[ch] + flat.pixel(2 * x + 1, 2 * y)[ch] +
                        flat.pixel(2 * x, 2 * y + 1)[ch] + flat.pixel(2 * x + 1, 2 * y + 1)[ch];
        worst = std::max(worst, std::abs(out.pixel(x, y)[ch] * 4 - sum));
      }
    }
  }
  CHECK(worst <= 2);  // rounding of the average only
}

TEST_CASE("mosaic: a rectangle in any tile keeps a tight box through placement and warp") {
  const int imgsz = 320;
  const at::Rgb colour{30, 40, 235};
  aug::WarpScratch scratch;
  std::mt19937_64 rng(5);
  for (int round = 0; round < 24; ++round) {
    const int which = round % 4;
    aug::Image imgs[4] = {at::make_image(imgsz, 200), at::make_image(240, imgsz),
                          at::make_image(imgsz, imgsz), at::make_image(imgsz, 180)};
    std::vector<aug::PixelBox> labels[4];
    // The rectangle, away from its tile's edges so the canvas crop does not cut it.
    const aug::Image& target = imgs[which];
    const int x1 = target.width / 2 - 40, y1 = target.height / 2 - 30;
    labels[which].push_back(at::fill_rect(imgs[which], x1, y1, x1 + 70, y1 + 50, colour, 2));
    aug::ImageView tiles[4];
    for (int i = 0; i < 4; ++i) tiles[i] = at::view(imgs[i]);
    const aug::MosaicCentre centre = aug::random_mosaic_centre(imgsz, 0.75, 1.25, rng);
    const aug::TiledCanvas canvas = aug::mosaic_canvas(imgsz, centre, tiles);
    std::vector<aug::PixelBox> canvas_boxes;
    for (int i = 0; i < 4; ++i) aug::append_mosaic_boxes(canvas, i, labels[i], 1.0f, {}, canvas_boxes);
    REQUIRE(canvas_boxes.size() == 1);

    // A rotation / scale / shear that keeps the canvas centre region in view.
    aug::AffineRange range;
    range.degrees = round < 12 ? 0 : 25;
    range.shear = round < 12 ? 0 : 4;
    range.translate = 0;
    range.scale_min = 0.4;
    range.scale_max = 0.6;
    const aug::Affine2x3 r = aug::random_affine_matrix(range, imgsz, imgsz, rng);
    const aug::Affine2x3 m = aug::compose(
        aug::Affine2x3::scale_translate(1, 1, imgsz / 2.0, imgsz / 2.0),
        aug::compose(r, aug::Affine2x3::scale_translate(1, 1, -centre.x, -centre.y)));
    aug::Image out = at::make_image(imgsz, imgsz, {0, 0, 0});
    std::vector<aug::PixelBox> boxes;
    aug::mosaic_warp(canvas, canvas_boxes, m, {}, at::mview(out), scratch, boxes);
    REQUIRE(boxes.size() == 1);
    CHECK(boxes[0].class_id == 2);
    const at::Found found = at::find_colour(at::view(out), colour);
    REQUIRE(found.count > 0);
    INFO("round " << round << " tile " << which);
    CHECK(at::contains(boxes[0], found.box, 1.0f));
    CHECK(at::max_edge_difference(found.box, boxes[0]) <= (round < 12 ? 1.0f : 2.5f));
  }
}

TEST_CASE("mosaic: boxes pushed out of the output are dropped, tiny ones filtered") {
  const int imgsz = 200;
  aug::Image imgs[4] = {at::make_image(imgsz, imgsz), at::make_image(imgsz, imgsz),
                        at::make_image(imgsz, imgsz), at::make_image(imgsz, imgsz)};
  std::vector<aug::PixelBox> labels[4];
  // Tile 3 (bottom-right) has a box that only the half resize keeps in view; tile 0 has a
  // large box and one 3 px wide.
  labels[3].push_back(at::fill_rect(imgs[3], 150, 150, 190, 190, {230, 20, 20}, 1));
  labels[0].push_back(at::fill_rect(imgs[0], 100, 100, 160, 160, {20, 220, 30}, 2));
  labels[0].push_back(at::fill_rect(imgs[0], 20, 20, 23, 40, {30, 40, 235}, 3));  // 3 px wide
  aug::ImageView tiles[4];
  for (int i = 0; i < 4; ++i) tiles[i] = at::view(imgs[i]);
  const aug::TiledCanvas canvas = aug::mosaic_canvas(imgsz, {200, 200}, tiles);
  std::vector<aug::PixelBox> canvas_boxes;
  for (int i = 0; i < 4; ++i) aug::append_mosaic_boxes(canvas, i, labels[i], 1.0f, {}, canvas_boxes);
  REQUIRE(canvas_boxes.size() == 3);

  aug::WarpScratch scratch;
  aug::Image out = at::make_image(imgsz, imgsz);
  std::vector<aug::PixelBox> boxes;
  // Identity: the output shows the canvas's top-left quarter, i.e. tile 0 only; tile 3's box
  // is outside and dropped. The 3 px box passes min_size 2.
  aug::BoxFilter filter;
  filter.min_size = 2.0f;
  aug::mosaic_warp(canvas, canvas_boxes, aug::Affine2x3::identity(), filter, at::mview(out),
                   scratch, boxes);
  REQUIRE(boxes.size() == 2);
  CHECK(boxes[0].class_id == 2);
  CHECK(boxes[1].class_id == 3);
  // yolo9's half resize with its w > 2, h > 2 filter drops the box that became 1.5 px wide.
  aug::mosaic_warp(canvas, canvas_boxes, aug::mosaic_half_resize(), filter, at::mview(out),
                   scratch, boxes);
  REQUIRE(boxes.size() == 2);
  CHECK(boxes[0].class_id == 2);
  CHECK(boxes[1].class_id == 1);
  CHECK(boxes[1].x1 == doctest::Approx(175.0f));
  CHECK(boxes[1].x2 == doctest::Approx(195.0f));
  const at::Found red = at::find_colour(at::view(out), {230, 20, 20});
  CHECK(at::max_edge_difference(red.box, boxes[1]) <= 1.0f);
  const at::Found green = at::find_colour(at::view(out), {20, 220, 30});
  CHECK(at::max_edge_difference(green.box, boxes[0]) <= 1.0f);
}

TEST_CASE("mosaic: the segmented warp equals looking up every pixel's neighbours one by one") {
  // warp_affine fills rows in runs (border, inside one tile, straddling an edge); zoomed-out,
  // rotated and sheared warps of canvases with narrow tiles put every kind of run in a row.
  std::mt19937_64 rng(5);
  aug::WarpScratch scratch;
  aug::AffineRange range;
  range.degrees = 40;
  range.shear = 10;
  range.scale_min = 0.1;
  range.scale_max = 2.0;
  const int imgsz = 96;
  for (int round = 0; round < 40; ++round) {
    aug::Image imgs[4];
    aug::ImageView tiles[4];
    for (int i = 0; i < 4; ++i) {
      const int shorter = aug::uniform_int(rng, 1, imgsz);
      const bool wide = aug::chance(rng, 0.5);
      imgs[i] = at::make_noise_image(wide ? imgsz : shorter, wide ? shorter : imgsz, rng());
      tiles[i] = at::view(imgs[i]);
    }
    const aug::TiledCanvas canvas =
        aug::mosaic_canvas(imgsz, aug::random_mosaic_centre(imgsz, 0.5, 1.5, rng), tiles);
    const aug::Affine2x3 m = aug::random_affine_matrix(range, imgsz, imgsz, rng);
    aug::Image out = at::make_image(imgsz, imgsz, {1, 2, 3});
    aug::warp_affine(canvas, m, at::mview(out), scratch);
    INFO("round " << round);
    CHECK(at::same_bytes(out, reference_warp(canvas, m, imgsz)));
  }
}

// Horizontal flip: pixels and boxes move together; only the content rectangle flips.

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "libreyolo/core/data/augment/flip.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;

TEST_CASE("flip: the box follows the rectangle, twice is the identity") {
  aug::Image img = at::make_image(101, 60);
  const at::Rgb c{20, 220, 30};
  std::vector<aug::PixelBox> boxes{at::fill_rect(img, 10, 5, 41, 30, c, 4)};
  const aug::Image original = img;
  aug::flip_horizontal(at::mview(img), boxes);
  CHECK(boxes[0].x1 == doctest::Approx(60.0f));
  CHECK(boxes[0].x2 == doctest::Approx(91.0f));
  CHECK(boxes[0].y1 == doctest::Approx(5.0f));
  CHECK(boxes[0].class_id == 4);
  const at::Found found = at::find_colour(at::view(img), c);
  CHECK(at::max_edge_difference(found.box, boxes[0]) == doctest::Approx(0.0f));
  aug::flip_horizontal(at::mview(img), boxes);
  CHECK(at::same_bytes(img, original));
  CHECK(boxes[0].x1 == doctest::Approx(10.0f));
}

TEST_CASE("flip: letterbox padding stays on the right") {
  aug::Image img = at::make_image(64, 64);
  const at::Rgb c{230, 20, 20};
  // Content is the left 40 columns; padding (114) right of it.
  std::vector<aug::PixelBox> boxes{at::fill_rect(img, 0, 10, 12, 20, c)};
  aug::flip_horizontal(at::mview(img), 40, 64, boxes);
  CHECK(boxes[0].x1 == doctest::Approx(28.0f));
  CHECK(boxes[0].x2 == doctest::Approx(40.0f));
  const at::Found found = at::find_colour(at::view(img), c);
  CHECK(at::max_edge_difference(found.box, boxes[0]) == doctest::Approx(0.0f));
  for (int y = 0; y < 64; ++y) {
    for (int x = 40; x < 64; ++x) CHECK_EQ(int(img.pixel(x, y)[0]), 114);
  }
}

TEST_CASE("flip: every pixel lands at its mirror column, whatever the width") {
  // Rows are mirrored in chunks from both ends: widths around the chunk sizes, odd and even.
  for (const int w : {1, 2, 3, 63, 64, 65, 127, 128, 129, 255, 256, 257, 640}) {
    const aug::Image original = at::make_noise_image(w + 5, 3, static_cast<std::uint64_t>(w));
    aug::Image img = original;
    std::vector<aug::PixelBox> boxes;
    aug::flip_horizontal(at::mview(img), w, 3, boxes);
    int wrong = 0;
    for (int y = 0; y < 3; ++y) {
      for (int x = 0; x < w + 5; ++x) {
        const int from = x < w ? w - 1 - x : x;  // columns past the content stay
        wrong += std::memcmp(img.pixel(x, y), original.pixel(from, y), 3) != 0;
      }
    }
    INFO("width " << w);
    CHECK(wrong == 0);
  }
}

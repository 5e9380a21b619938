// Drawing boxes on a known buffer, then through the encoders and our decoder: the box edge has
// the class colour, the inside and the far background are untouched, the label is filled.
#include <doctest/doctest.h>

#include <cstdlib>

#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/draw/box_style.hpp"
#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/error.hpp"

using namespace libreyolo::core;

namespace {

constexpr std::uint8_t kGrey = 90;

data::Image grey(int width, int height) {
  return {width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * 3, kGrey)};
}

bool near(const std::uint8_t* p, draw::Rgb c, int tolerance) {
  return std::abs(p[0] - c.r) <= tolerance && std::abs(p[1] - c.g) <= tolerance && std::abs(p[2] - c.b) <= tolerance;
}

bool is_grey(const std::uint8_t* p) { return p[0] == kGrey && p[1] == kGrey && p[2] == kGrey; }

// Box (40, 50)-(120, 110) of class 2 on a 160 x 128 grey image, labelled.
data::Image annotated() {
  auto image = grey(160, 128);
  draw::draw_labelled_boxes(image, {{40, 50, 120, 110, 2, "car 0.91"}});
  return image;
}

void check_annotation(const data::Image& image, int tolerance) {
  const auto colour = draw::class_colour(2);
  CHECK(near(image.pixel(80, 110), colour, tolerance));  // bottom edge
  CHECK(near(image.pixel(40, 80), colour, tolerance));   // left edge
  CHECK(near(image.pixel(120, 80), colour, tolerance));  // right edge
  CHECK(std::abs(image.pixel(80, 85)[0] - kGrey) <= tolerance);  // inside the box, untouched
  if (tolerance == 0) CHECK(is_grey(image.pixel(80, 85)));
  CHECK(std::abs(image.pixel(5, 5)[0] - kGrey) <= tolerance);  // far background
  CHECK(std::abs(image.pixel(150, 120)[1] - kGrey) <= tolerance);
  // The label sits on the box's top edge, above it: its background has the class colour
  // somewhere in the first rows above y = 50, and its text (white or black) is there too.
  int filled = 0, text = 0;
  const auto ink = draw::text_colour_on(colour);
  for (int y = 30; y < 50; ++y) {
    for (int x = 40; x < 100; ++x) {
      filled += near(image.pixel(x, y), colour, tolerance);
      text += near(image.pixel(x, y), ink, tolerance + 100);  // anti-aliased strokes count
    }
  }
  CHECK(filled > 200);
  CHECK(text > 25);
  MESSAGE("label: ", filled, " fill pixels, ", text, " text pixels");
}

}  // namespace

TEST_CASE("draw_labelled_boxes outlines the box and fills its label, and survives PNG and JPEG") {
  if (!draw::drawing_available()) {
    CHECK_THROWS_WITH_AS(draw::require_drawing(), doctest::Contains("libopencv-core-dev and libopencv-imgproc-dev"),
                         Error);
    auto image = grey(8, 8);
    CHECK_THROWS_WITH_AS(draw::draw_labelled_boxes(image, {}), doctest::Contains("save=false"), Error);
    return;
  }
  const auto image = annotated();
  check_annotation(image, 0);
  const auto png = draw::encode_png(image);
  check_annotation(data::decode_image_bytes(png.data(), png.size(), "a.png"), 0);
  const auto jpeg = draw::encode_jpeg(image, 95);
  check_annotation(data::decode_image_bytes(jpeg.data(), jpeg.size(), "a.jpg"), 40);
}

TEST_CASE("a box at the top edge gets its label inside; boxes outside the image are clipped") {
  if (!draw::drawing_available()) return;
  auto image = grey(100, 80);
  draw::draw_labelled_boxes(image, {{10, 0, 90, 70, 0, "person 0.50"}, {-50, -20, 500, 400, 5, ""}});
  const auto person = draw::class_colour(0);
  int filled_inside = 0;
  for (int y = 2; y < 15; ++y) {
    for (int x = 12; x < 60; ++x) filled_inside += near(image.pixel(x, y), person, 0);
  }
  CHECK(filled_inside > 100);
  // The second box, clipped to the image, outlines its border.
  CHECK(near(image.pixel(0, 40), draw::class_colour(5), 0));
  CHECK(near(image.pixel(99, 40), draw::class_colour(5), 0));
}

TEST_CASE("draw_labelled_boxes refuses a buffer that does not match its size") {
  if (!draw::drawing_available()) return;
  data::Image broken{10, 10, std::vector<std::uint8_t>(5)};
  CHECK_THROWS_AS(draw::draw_labelled_boxes(broken, {}), Error);
}

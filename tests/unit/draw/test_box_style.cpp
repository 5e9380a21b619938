// Label text, class colours and line widths: what a user sees on every annotated image.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <tuple>

#include "libreyolo/core/draw/box_style.hpp"

using namespace libreyolo::core::draw;

namespace {
int distance(Rgb a, Rgb b) { return std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b); }
}  // namespace

TEST_CASE("label_text is the name and the confidence with two decimals") {
  CHECK(label_text("person", 0.874) == "person 0.87");
  CHECK(label_text("traffic light", 0.5) == "traffic light 0.50");
  CHECK(label_text("dog", 1.0) == "dog 1.00");
  CHECK(label_text("cat", 0.005) == "cat 0.01");  // rounded, not truncated
}

TEST_CASE("class colours are fixed, distinct for neighbours and bright enough for a label") {
  CHECK(class_colour(0) == class_colour(0));
  std::set<std::tuple<int, int, int>> seen;
  for (int id = 0; id < 80; ++id) {
    const auto c = class_colour(id);
    seen.insert(std::make_tuple(int(c.r), int(c.g), int(c.b)));
    CHECK(std::max({int(c.r), int(c.g), int(c.b)}) >= 190);  // never a dark, muddy colour
    if (id > 0) CHECK(distance(c, class_colour(id - 1)) > 120);
  }
  CHECK(seen.size() == 80);  // the 80 COCO classes all differ
  CHECK(class_colour(-3) == class_colour(3));
}

TEST_CASE("label text is black on light colours and white on dark ones") {
  CHECK(text_colour_on({255, 255, 0}) == Rgb{0, 0, 0});
  CHECK(text_colour_on({240, 240, 240}) == Rgb{0, 0, 0});
  CHECK(text_colour_on({20, 20, 160}) == Rgb{255, 255, 255});
  CHECK(text_colour_on({200, 0, 0}) == Rgb{255, 255, 255});
}

TEST_CASE("line thickness grows with the image and is at least 2") {
  CHECK(line_thickness(320, 240) == 2);
  CHECK(line_thickness(1920, 1080) == 5);  // 0.3% of 1500, rounded
  CHECK(line_thickness(4000, 3000) == 11);
  CHECK(line_thickness(0, 0) == 2);
}

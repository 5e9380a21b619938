#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "libreyolo/core/draw/colour_scale.hpp"

using namespace libreyolo::core::draw;

namespace {
int luma(Rgb c) { return 299 * c.r + 587 * c.g + 114 * c.b; }
}  // namespace

TEST_CASE("blues: matplotlib's ends, darker all the way, clamped outside [0, 1]") {
  CHECK(blues(0.0) == Rgb{247, 251, 255});
  CHECK(blues(1.0) == Rgb{8, 48, 107});
  CHECK(blues(0.5) == Rgb{107, 174, 214});  // the middle stop of nine
  for (int i = 1; i <= 100; ++i) {
    CAPTURE(i);
    CHECK(luma(blues(i / 100.0)) < luma(blues((i - 1) / 100.0)));
  }
  CHECK(blues(-3) == blues(0));
  CHECK(blues(7) == blues(1));
  CHECK(blues(std::numeric_limits<double>::quiet_NaN()) == blues(0));
}

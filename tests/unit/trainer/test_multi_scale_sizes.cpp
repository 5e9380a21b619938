// The multi-scale size lists: a declared list as is, LibreYOLO's YOLO range and D-FINE's
// generate_scales derived from imgsz (worked out by hand from their integer arithmetic).
#include <doctest/doctest.h>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/multi_scale_sizes.hpp"

#include <vector>

using libreyolo::core::trainer::multi_scale_sizes;
using libreyolo::sdk::MultiScale;

TEST_CASE("multi-scale sizes: D-FINE's scales at 640 are 480..608, 640 three times, 800..672") {
  MultiScale declared;
  declared.around = MultiScale::Around::dfine_scales;
  const std::vector<int> expected{480, 512, 544, 576, 608, 640, 640, 640, 800, 768, 736, 704, 672};
  CHECK(multi_scale_sizes(declared, 640) == expected);
  // 160: floor(120 / 32) * 32 = 96, two steps up; floor(200 / 32) * 32 = 192, two steps down.
  const std::vector<int> small{96, 128, 160, 160, 160, 192, 160};
  CHECK(multi_scale_sizes(declared, 160) == small);
}

TEST_CASE("multi-scale sizes: the YOLO range, and a declared list taken as is but checked") {
  MultiScale declared;
  CHECK(multi_scale_sizes(declared, 320) == std::vector<int>{160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480});
  declared.sizes = {320, 640, 640};
  CHECK(multi_scale_sizes(declared, 999) == std::vector<int>{320, 640, 640});
  declared.sizes = {320, 650};
  CHECK_THROWS_AS(multi_scale_sizes(declared, 640), libreyolo::core::Error);
}

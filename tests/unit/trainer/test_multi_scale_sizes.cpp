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

TEST_CASE("multi-scale sizes: an imgsz too small for the rule is the user's to change, named with the way out") {
  MultiScale dfine;
  dfine.around = MultiScale::Around::dfine_scales;
  // floor(32 * 0.75 / 32) * 32 = 0: D-FINE's low end vanishes below imgsz 64.
  CHECK_THROWS_WITH(multi_scale_sizes(dfine, 32),
                    doctest::Contains("imgsz=32 is too small for this family's multi-scale training"));
  CHECK_THROWS_WITH(multi_scale_sizes(dfine, 32), doctest::Contains("use imgsz=64 or more, or multi_scale=false"));
  CHECK(multi_scale_sizes(dfine, 64) == std::vector<int>{32, 64, 64, 64, 64});
  MultiScale declared;
  declared.sizes = {320, 0};
  CHECK_THROWS_WITH(multi_scale_sizes(declared, 640), doctest::Contains("fix the family's multi_scale_sizes"));
}

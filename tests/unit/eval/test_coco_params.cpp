// The evaluation grid must be bit-identical to pycocotools' numpy.linspace tables: an IoU that
// lands exactly on a threshold (0.5, 0.75 are common with integer boxes) must compare the same.

#include <doctest/doctest.h>

#include "libreyolo/core/eval/coco_params.hpp"

using namespace libreyolo::core::eval;

TEST_CASE("iou thresholds are .50:.05:.95 and hit the summary's exact values") {
  const auto& t = iou_thresholds();
  REQUIRE(t.size() == 10);
  // Exact equality on purpose: pycocotools' summarize() looks .5 and .75 up with ==.
  CHECK(t[kIou50Index] == 0.5);
  CHECK(t[kIou75Index] == 0.75);
  CHECK(t[9] == 0.95);
  for (std::size_t i = 0; i < t.size(); ++i) {
    CHECK(t[i] == doctest::Approx(0.5 + 0.05 * static_cast<double>(i)).epsilon(1e-12));
  }
}

TEST_CASE("recall thresholds are 0:.01:1 with exact ends and midpoint") {
  const auto& r = recall_thresholds();
  REQUIRE(r.size() == 101);
  CHECK(r[0] == 0.0);
  CHECK(r[50] == 0.5);  // 50 * 0.01 rounds to exactly 0.5: recall 1/2 reaches it
  CHECK(r[100] == 1.0);
  for (std::size_t i = 1; i < r.size(); ++i) CHECK(r[i] > r[i - 1]);
}

TEST_CASE("area ranges and maxDets follow COCO") {
  const auto& a = area_ranges();
  CHECK(a[static_cast<std::size_t>(AreaRange::kAll)].min_area == 0.0);
  CHECK(a[static_cast<std::size_t>(AreaRange::kAll)].max_area == 1e10);
  CHECK(a[static_cast<std::size_t>(AreaRange::kSmall)].max_area == 1024.0);
  CHECK(a[static_cast<std::size_t>(AreaRange::kMedium)].min_area == 1024.0);
  CHECK(a[static_cast<std::size_t>(AreaRange::kMedium)].max_area == 9216.0);
  CHECK(a[static_cast<std::size_t>(AreaRange::kLarge)].min_area == 9216.0);
  CHECK(a[static_cast<std::size_t>(AreaRange::kLarge)].max_area == 1e10);
  CHECK(kMaxDetections[0] == 1);
  CHECK(kMaxDetections[1] == 10);
  CHECK(kMaxDetections[2] == 100);
}

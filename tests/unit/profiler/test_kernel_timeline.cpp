#include <doctest/doctest.h>

#include "libreyolo/core/profiler/kernel_timeline.hpp"

using namespace libreyolo::core::profiler;

TEST_CASE("GPU busy time is the union of event intervals") {
  CHECK(busy_time_us({}) == 0);
  CHECK(busy_time_us({{"a", 10, 5}}) == doctest::Approx(5));
  // Disjoint: gaps are idle.
  CHECK(busy_time_us({{"a", 0, 2}, {"b", 10, 3}}) == doctest::Approx(5));
  // Overlapping (two streams) and nested, given out of order: [0, 8) and [20, 21).
  CHECK(busy_time_us({{"c", 20, 1}, {"a", 0, 5}, {"b", 3, 5}, {"d", 1, 1}}) == doctest::Approx(9));
  // Touching intervals merge without double counting.
  CHECK(busy_time_us({{"a", 0, 4}, {"b", 4, 4}}) == doctest::Approx(8));
}

TEST_CASE("kernel summary counts events and ranks names by total time") {
  const auto summary = summarize({{"gemm", 0, 10}, {"relu", 10, 1}, {"relu", 12, 1}, {"gemm", 20, 10}, {"copy", 40, 30}});
  CHECK(summary.events == 5);
  CHECK(summary.busy_us == doctest::Approx(52));
  CHECK(summary.kernel_us == doctest::Approx(52));  // one stream: nothing side by side
  REQUIRE(summary.by_name.size() == 3);
  CHECK(summary.by_name[0].name == "copy");
  CHECK(summary.by_name[1].name == "gemm");
  CHECK(summary.by_name[1].count == 2);
  CHECK(summary.by_name[1].total_us == doctest::Approx(20));
  CHECK(summary.by_name[2].name == "relu");
  CHECK(summary.by_name[2].count == 2);
}

TEST_CASE("kernel summary: kernels side by side on two streams count once in busy time, twice in kernel time") {
  const auto summary = summarize({{"dgrad", 0, 10}, {"wgrad", 2, 10}, {"bn", 10, 4}});
  CHECK(summary.busy_us == doctest::Approx(14));
  CHECK(summary.kernel_us == doctest::Approx(24));
}

TEST_CASE("idle gaps are the holes between busy stretches, longest first, named by their neighbours") {
  CHECK(longest_idle_gaps({}, 3).empty());
  CHECK(longest_idle_gaps({{"a", 0, 5}, {"b", 5, 5}}, 3).empty());  // touching: no gap
  // Out of order; "long" covers "short" so the gap after both is named after "long".
  const auto gaps =
      longest_idle_gaps({{"tail", 50, 1}, {"long", 0, 20}, {"short", 2, 3}, {"mid", 24, 6}, {"late", 40, 2}}, 2);
  REQUIRE(gaps.size() == 2);
  CHECK(gaps[0].length_us == doctest::Approx(10));  // [30, 40)
  CHECK(gaps[0].start_us == doctest::Approx(30));
  CHECK(gaps[0].before == "mid");
  CHECK(gaps[0].after == "late");
  CHECK(gaps[1].length_us == doctest::Approx(8));  // [42, 50)
  CHECK(gaps[1].before == "late");
  CHECK(gaps[1].after == "tail");
  const auto all = longest_idle_gaps({{"tail", 50, 1}, {"long", 0, 20}, {"short", 2, 3}, {"mid", 24, 6}}, 10);
  REQUIRE(all.size() == 2);
  CHECK(all[1].before == "long");  // [20, 24): "short" ended earlier
  CHECK(all[1].after == "mid");
}

TEST_CASE("idle time is split by gap length") {
  // Gaps of 1, 4 and 30 us; buckets < 2, < 5, < 20, the rest.
  const auto idle = idle_time_by_gap_length({{"a", 0, 10}, {"b", 11, 1}, {"c", 16, 4}, {"d", 50, 1}}, {2, 5, 20});
  REQUIRE(idle.size() == 4);
  CHECK(idle[0] == doctest::Approx(1));
  CHECK(idle[1] == doctest::Approx(4));
  CHECK(idle[2] == doctest::Approx(0));
  CHECK(idle[3] == doctest::Approx(30));
  CHECK(idle_time_by_gap_length({}, {2}) == std::vector<double>{0, 0});
}

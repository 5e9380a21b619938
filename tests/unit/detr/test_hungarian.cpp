// The SDK's exact assignment solver (sdk/detr/hungarian.hpp): optimal against an exhaustive
// search on small random matrices, scipy's own indices on the recorded fixture
// (tests/fixtures/detr/hungarian_scipy.json, made by tests/python/hungarian_reference.py), and
// clear errors on bad input.
#include <doctest/doctest.h>

#include <libreyolo/sdk/detr/hungarian.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../fixture_json.hpp"
#include "assignment_checks.hpp"
#include "support/test_paths.hpp"

using libreyolo::sdk::detr::solve_linear_assignment;
namespace test = libreyolo::test;

namespace {

std::vector<int64_t> solve(const std::vector<float>& cost, int64_t rows, int64_t cols) {
  return solve_linear_assignment(cost.data(), rows, cols, cols);
}

std::string fixture_path() {
  return std::string(libreyolo::test_paths::source_dir()) + "/tests/fixtures/detr/hungarian_scipy.json";
}

test::Json load_fixture() {
  std::ifstream in(fixture_path());
  REQUIRE_MESSAGE(in.good(), "missing " << fixture_path() << " (run tests/python/hungarian_reference.py)");
  std::stringstream text;
  text << in.rdbuf();
  return test::parse_json(text.str());
}

// Random matrices of every shape 1..6 x 1..6; `levels` > 0 draws integers in [0, levels)
// (many tied optima), 0 draws continuous floats (ties have probability zero).
void check_against_brute_force(unsigned seed, int levels, int repeats) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 3.0f);
  std::uniform_int_distribution<int> integer(0, std::max(levels - 1, 0));
  int identical = 0, unique = 0;
  for (int64_t rows = 1; rows <= 6; ++rows) {
    for (int64_t cols = 1; cols <= 6; ++cols) {
      for (int k = 0; k < repeats; ++k) {
        std::vector<float> cost(static_cast<size_t>(rows * cols));
        for (auto& c : cost) c = levels > 0 ? static_cast<float>(integer(rng)) : uniform(rng);
        const auto got = solve(cost, rows, cols);
        const auto best = test::brute_force_assignment(cost, rows, cols);
        INFO("rows " << rows << " cols " << cols << " case " << k);
        REQUIRE(got.size() == static_cast<size_t>(rows));
        CHECK(test::is_full_matching(got, cols));
        CHECK(test::assignment_total(cost, cols, got) == doctest::Approx(best.best_total).epsilon(1e-9));
        if (best.optimal_count == 1) {
          ++unique;
          CHECK(got == best.best);
          identical += got == best.best;
        }
      }
    }
  }
  if (levels == 0) CHECK(unique == 36 * repeats);  // continuous costs: every optimum unique
  CHECK(identical == unique);
}

}  // namespace

TEST_CASE("hungarian: optimal on every small shape, continuous costs (brute force)") {
  check_against_brute_force(7, 0, 12);
}

TEST_CASE("hungarian: optimal total with tied integer costs (brute force)") {
  check_against_brute_force(11, 3, 12);
  check_against_brute_force(13, 10, 6);
}

TEST_CASE("hungarian: scipy's indices on the recorded fixture") {
  const auto fixture = load_fixture();
  const auto& cases = fixture["cases"].items;
  REQUIRE(cases.size() >= 300);
  int unique = 0, ties_identical = 0, ties = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const auto rows = static_cast<int64_t>(c["rows"].number), cols = static_cast<int64_t>(c["cols"].number);
    std::vector<float> cost;
    for (const auto& v : c["cost"].items) cost.push_back(static_cast<float>(v.number));
    std::vector<int64_t> expected;
    for (const auto& v : c["assignment"].items) expected.push_back(static_cast<int64_t>(v.number));
    REQUIRE(cost.size() == static_cast<size_t>(rows * cols));
    INFO("case " << i << " (" << c["name"].text << ", " << rows << " x " << cols << ")");
    const auto got = solve(cost, rows, cols);
    CHECK(test::is_full_matching(got, cols));
    CHECK(test::assignment_total(cost, cols, got) == doctest::Approx(c["total"].number).epsilon(1e-9));
    if (c["unique"].number == 1.0) {
      ++unique;
      CHECK(got == expected);
    } else {
      ++ties;
      ties_identical += got == expected;
    }
  }
  CHECK(unique >= 280);
  // Same scan order and tie rule as scipy: even tied optima come out the same.
  CHECK(ties_identical == ties);
}

TEST_CASE("hungarian: tall and wide matrices are the transposes of each other") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  const int64_t rows = 300, cols = 100;
  std::vector<float> tall(static_cast<size_t>(rows * cols)), wide(tall.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) wide[static_cast<size_t>(c * rows + r)] = tall[static_cast<size_t>(r * cols + c)] = uniform(rng);
  const auto by_query = solve(tall, rows, cols);
  const auto by_gt = solve(wide, cols, rows);
  CHECK(test::is_full_matching(by_query, cols));
  for (int64_t c = 0; c < cols; ++c) CHECK(by_query[static_cast<size_t>(by_gt[static_cast<size_t>(c)])] == c);
}

TEST_CASE("hungarian: row_stride skips padding, empty sides, bad input") {
  // A 2 x 2 problem stored with stride 3; the padding column holds NaN and must not be read.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> padded = {5, 1, nan, 1, 5, nan};
  CHECK(solve_linear_assignment(padded.data(), 2, 2, 3) == std::vector<int64_t>{1, 0});
  CHECK(solve_linear_assignment(padded.data(), 2, 0, 3) == std::vector<int64_t>{-1, -1});
  CHECK(solve_linear_assignment(nullptr, 0, 4, 4).empty());

  std::vector<float> bad = {0, 1, 2, nan};
  CHECK_THROWS_WITH_AS(solve(bad, 2, 2), doctest::Contains("matrix contains invalid numeric entries (cost[1][1]"),
                       std::invalid_argument);
  bad[3] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH_AS(solve(bad, 2, 2), doctest::Contains("every cost must be finite"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(solve_linear_assignment(padded.data(), 2, 3, 2), doctest::Contains("row_stride (2) is smaller"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(solve_linear_assignment(padded.data(), -1, 2, 2), doctest::Contains("must not be negative"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(solve_linear_assignment(nullptr, 2, 2, 2), doctest::Contains("cost is null"),
                       std::invalid_argument);
}

// Batched matching (sdk/detr/batched_matching.hpp): every matrix of a step solved from one host
// copy, on worker threads, equal to solving each matrix alone; padding columns never read.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/batched_matching.hpp>
#include <libreyolo/sdk/detr/hungarian.hpp>

#include <limits>
#include <set>
#include <stdexcept>
#include <vector>

namespace detr = libreyolo::sdk::detr;

namespace {

// What matrix n alone gives: solve_linear_assignment on its first gt_counts[n] columns.
std::vector<int64_t> solve_one(const torch::Tensor& cost, int64_t n, int64_t gt_count) {
  const auto matrix = cost[n].narrow(1, 0, gt_count).contiguous().to(torch::kFloat32);
  return detr::solve_linear_assignment(matrix.data_ptr<float>(), matrix.size(0), gt_count, gt_count);
}

std::vector<int64_t> row_of(const torch::Tensor& result, int64_t n) {
  const auto row = result[n].contiguous();
  return std::vector<int64_t>(row.data_ptr<int64_t>(), row.data_ptr<int64_t>() + row.numel());
}

}  // namespace

TEST_CASE("match_batched: equals per-matrix solves, padding ignored, more matrices than threads") {
  torch::manual_seed(5);
  const int64_t n = 37, q = 40, m = 12;
  auto cost = torch::rand({n, q, m});
  std::vector<int64_t> gt_counts(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) gt_counts[static_cast<size_t>(i)] = i % (m + 1);  // 0..12, some 0
  // Padding holds NaN: reading it would throw, so passing shows it is never read.
  for (int64_t i = 0; i < n; ++i) cost[i].narrow(1, gt_counts[static_cast<size_t>(i)], m - gt_counts[static_cast<size_t>(i)]).fill_(std::numeric_limits<float>::quiet_NaN());

  for (int threads : {1, 3, 0}) {
    INFO("threads " << threads);
    const auto result = detr::match_batched_cpu(cost, gt_counts, threads);
    CHECK(result.sizes() == torch::IntArrayRef({n, q}));
    CHECK((result.scalar_type() == torch::kInt64));
    for (int64_t i = 0; i < n; ++i) {
      const auto g = gt_counts[static_cast<size_t>(i)];
      const auto row = row_of(result, i);
      if (g == 0)
        CHECK(row == std::vector<int64_t>(static_cast<size_t>(q), -1));
      else
        CHECK(row == solve_one(cost, i, g));
      CHECK((result[i] >= 0).sum().item<int64_t>() == std::min(q, g));
    }
  }
  CHECK(torch::equal(detr::match_batched(cost, gt_counts), detr::match_batched_cpu(cost, gt_counts, 1)));
}

TEST_CASE("match_batched: any float dtype and layout, queries fewer than GT") {
  torch::manual_seed(6);
  const auto cost = torch::rand({4, 6, 9}, torch::kFloat64);
  const std::vector<int64_t> gt_counts = {9, 3, 7, 0};
  const auto expected = detr::match_batched(cost.to(torch::kFloat32), gt_counts);
  CHECK(torch::equal(detr::match_batched(cost, gt_counts), expected));
  // A non-contiguous view of the same values.
  const auto strided = cost.transpose(1, 2).contiguous().transpose(1, 2);
  CHECK(!strided.is_contiguous());
  CHECK(torch::equal(detr::match_batched(strided, gt_counts), expected));
  // 6 queries, 9 GT: every query assigned, to distinct GT.
  const auto full = expected[0];
  CHECK((full >= 0).all().item<bool>());
  const auto row = row_of(expected, 0);
  CHECK(std::set<int64_t>(row.begin(), row.end()).size() == 6);
  CHECK(detr::match_batched(cost.to(torch::kFloat16), gt_counts).sizes() == torch::IntArrayRef({4, 6}));
}

TEST_CASE("match_batched: empty batches") {
  CHECK(detr::match_batched(torch::zeros({0, 5, 3}), {}).sizes() == torch::IntArrayRef({0, 5}));
  CHECK(torch::equal(detr::match_batched(torch::zeros({2, 5, 0}), {0, 0}), torch::full({2, 5}, -1, torch::kInt64)));
  CHECK(detr::match_batched(torch::zeros({2, 0, 4}), {4, 1}).sizes() == torch::IntArrayRef({2, 0}));
}

TEST_CASE("match_batched: clear errors") {
  const auto cost = torch::rand({3, 5, 4});
  CHECK_THROWS_WITH_AS(detr::match_batched(torch::rand({5, 4}), {4}), doctest::Contains("must be [N, Q, M]"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(detr::match_batched(torch::ones({3, 5, 4}, torch::kInt64), {4, 4, 4}),
                       doctest::Contains("floating-point"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(detr::match_batched(cost, {4, 4}), doctest::Contains("gt_counts has 2 entries but cost has 3"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(detr::match_batched(cost, {4, 5, 4}), doctest::Contains("gt_counts[1] = 5 is outside [0, 4]"),
                       std::invalid_argument);
  auto bad = cost.clone();
  bad[2][1][0] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH_AS(detr::match_batched(bad, {4, 4, 4}),
                       doctest::Contains("match_batched: matrix 2: solve_linear_assignment: matrix contains invalid "
                                         "numeric entries (cost[1][0]"),
                       std::invalid_argument);
}

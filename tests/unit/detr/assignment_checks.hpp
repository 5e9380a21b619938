#pragma once
// Helpers shared by the Hungarian solver's tests: the total cost of an assignment, whether it
// is a valid rectangular matching, and an exhaustive solver for small matrices.
#include <cstdint>
#include <vector>

namespace libreyolo::test {

// Sum of cost[r][assignment[r]] over the assigned rows, in double.
double assignment_total(const std::vector<float>& cost, int64_t cols, const std::vector<int64_t>& assignment);

// Every column used at most once, inside [0, cols), and exactly min(rows, cols) rows assigned.
bool is_full_matching(const std::vector<int64_t>& assignment, int64_t cols);

struct BruteForceResult {
  double best_total = 0.0;
  std::vector<int64_t> best;  // one optimal assignment, a column (or -1) per row
  int optimal_count = 0;      // how many assignments reach best_total (within 1e-9)
};

// Tries every matching of the shorter side into the longer one (6 x 6: 720 of them).
BruteForceResult brute_force_assignment(const std::vector<float>& cost, int64_t rows, int64_t cols);

}  // namespace libreyolo::test

#include "assignment_checks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace libreyolo::test {

double assignment_total(const std::vector<float>& cost, int64_t cols, const std::vector<int64_t>& assignment) {
  double total = 0.0;
  for (size_t r = 0; r < assignment.size(); ++r)
    if (assignment[r] >= 0) total += static_cast<double>(cost[r * static_cast<size_t>(cols) + static_cast<size_t>(assignment[r])]);
  return total;
}

bool is_full_matching(const std::vector<int64_t>& assignment, int64_t cols) {
  std::vector<char> used(static_cast<size_t>(cols), 0);
  int64_t assigned = 0;
  for (auto c : assignment) {
    if (c < 0) continue;
    if (c >= cols || used[static_cast<size_t>(c)]) return false;
    used[static_cast<size_t>(c)] = 1;
    ++assigned;
  }
  return assigned == std::min<int64_t>(static_cast<int64_t>(assignment.size()), cols);
}

BruteForceResult brute_force_assignment(const std::vector<float>& cost, int64_t rows, int64_t cols) {
  // Enumerate on the shorter side: each of its items picks an unused item of the longer side.
  const bool by_row = rows <= cols;
  const int64_t shorter = by_row ? rows : cols, longer = by_row ? cols : rows;
  auto at = [&](int64_t s, int64_t l) {
    return static_cast<double>(by_row ? cost[static_cast<size_t>(s * cols + l)] : cost[static_cast<size_t>(l * cols + s)]);
  };
  BruteForceResult result;
  result.best_total = std::numeric_limits<double>::infinity();
  std::vector<int64_t> pick(static_cast<size_t>(shorter), -1);
  std::vector<char> used(static_cast<size_t>(longer), 0);
  std::function<void(int64_t, double)> visit = [&](int64_t s, double total) {
    if (s == shorter) {
      if (total < result.best_total - 1e-9) {
        result.best_total = total;
        result.optimal_count = 1;
        result.best.assign(static_cast<size_t>(rows), -1);
        for (int64_t k = 0; k < shorter; ++k) {
          const int64_t l = pick[static_cast<size_t>(k)];
          if (by_row) result.best[static_cast<size_t>(k)] = l; else result.best[static_cast<size_t>(l)] = k;
        }
      } else if (std::abs(total - result.best_total) <= 1e-9) {
        ++result.optimal_count;
      }
      return;
    }
    for (int64_t l = 0; l < longer; ++l) {
      if (used[static_cast<size_t>(l)]) continue;
      used[static_cast<size_t>(l)] = 1;
      pick[static_cast<size_t>(s)] = l;
      visit(s + 1, total + at(s, l));
      used[static_cast<size_t>(l)] = 0;
    }
  };
  visit(0, 0.0);
  return result;
}

}  // namespace libreyolo::test

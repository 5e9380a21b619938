// The shortest-augmenting-path assignment solver (see hungarian.hpp). Rows are added one at a
// time; each addition runs a Dijkstra-like search over reduced costs for the cheapest path
// from the new row to a free column, then updates the dual variables (u for rows, v for
// columns) and flips the path. The solver always works on a matrix with rows <= cols (a taller
// one is transposed first), so every row ends up assigned.
#include "libreyolo/sdk/detr/hungarian.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace libreyolo::sdk::detr {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A dense row-major copy with rows <= cols. Floats, widened to double where they are used:
// exact, and half the cache footprint of a double copy.
struct WorkingMatrix {
  std::vector<float> values;
  int64_t rows = 0;
  int64_t cols = 0;
  bool transposed = false;
};

[[noreturn]] void throw_invalid_entry(int64_t row, int64_t col, float value) {
  throw std::invalid_argument("solve_linear_assignment: matrix contains invalid numeric entries (cost[" +
                              std::to_string(row) + "][" + std::to_string(col) + "] = " + std::to_string(value) +
                              "): every cost must be finite; a NaN or inf usually comes from a diverged "
                              "prediction or a log of 0 in the cost, fix it before matching");
}

void check_arguments(const float* cost, int64_t rows, int64_t cols, int64_t row_stride) {
  if (rows < 0 || cols < 0)
    throw std::invalid_argument("solve_linear_assignment: rows (" + std::to_string(rows) + ") and cols (" +
                                std::to_string(cols) + ") must not be negative");
  if (row_stride < cols)
    throw std::invalid_argument("solve_linear_assignment: row_stride (" + std::to_string(row_stride) +
                                ") is smaller than cols (" + std::to_string(cols) +
                                "): rows would overlap; pass the allocated row length (>= cols)");
  if (cost == nullptr && rows > 0 && cols > 0)
    throw std::invalid_argument("solve_linear_assignment: cost is null for a " + std::to_string(rows) + " x " +
                                std::to_string(cols) + " matrix");
}

// Copies the matrix (transposing it when it is taller than wide) and rejects non-finite costs.
WorkingMatrix make_working_matrix(const float* cost, int64_t rows, int64_t cols, int64_t row_stride) {
  WorkingMatrix m;
  m.transposed = rows > cols;
  m.rows = m.transposed ? cols : rows;
  m.cols = m.transposed ? rows : cols;
  m.values.resize(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r) {
    const float* source = cost + r * row_stride;
    for (int64_t c = 0; c < cols; ++c) {
      const float value = source[c];
      if (!std::isfinite(value)) throw_invalid_entry(r, c, value);
      const int64_t target = m.transposed ? c * m.cols + r : r * m.cols + c;
      m.values[static_cast<size_t>(target)] = value;
    }
  }
  return m;
}

// Everything one solve keeps between the row additions. A search touches few rows and columns
// (about 1.2 rows per search on a random 100 x 300 matrix), so the rows and columns it reached
// are kept as lists and only those are visited by the dual update: nothing of size rows or cols
// is cleared per search except the scan order.
struct SolverState {
  explicit SolverState(const WorkingMatrix& matrix)
      : m(matrix),
        u(static_cast<size_t>(matrix.rows), 0.0),
        v(static_cast<size_t>(matrix.cols), 0.0),
        path_cost(static_cast<size_t>(matrix.cols)),
        path_row(static_cast<size_t>(matrix.cols), -1),
        col_of_row(static_cast<size_t>(matrix.rows), -1),
        row_of_col(static_cast<size_t>(matrix.cols), -1),
        unscanned(static_cast<size_t>(matrix.cols)) {
    seen_rows.reserve(static_cast<size_t>(matrix.rows));
    done_cols.reserve(static_cast<size_t>(matrix.cols));
  }

  const WorkingMatrix& m;
  std::vector<double> u, v;          // dual variables of rows and columns
  std::vector<double> path_cost;     // shortest reduced path cost to each column in this search
  std::vector<int64_t> path_row;     // the row a column is reached from on that path
  std::vector<int64_t> col_of_row;   // current matching
  std::vector<int64_t> row_of_col;
  std::vector<int64_t> unscanned;    // columns whose path cost is not final yet, in scan order
  std::vector<int64_t> seen_rows;    // rows on this search's tree, the start row first
  std::vector<int64_t> done_cols;    // columns whose path cost became final in this search
};

// The search's first scan, from the start row: every column's path cost is set outright (it
// is infinite before), and the scan order is written on the way, descending column index as
// scipy scans. Returns the slot in `unscanned` of the cheapest column, preferring a free one
// among equals (scipy's tie rule); `lowest` gets its cost.
int64_t scan_start_row(SolverState& s, int64_t row, double& lowest) {
  const int64_t cols = s.m.cols;
  const float* row_cost = s.m.values.data() + row * cols;
  const double row_dual = s.u[static_cast<size_t>(row)];
  int64_t best_slot = -1;
  lowest = kInfinity;
  for (int64_t k = 0; k < cols; ++k) {
    const int64_t col = cols - k - 1;
    s.unscanned[static_cast<size_t>(k)] = col;
    // 0.0 + ...: the same operations as the later scans (scipy's minVal starts at 0).
    const double reduced = 0.0 + static_cast<double>(row_cost[col]) - row_dual - s.v[static_cast<size_t>(col)];
    s.path_cost[static_cast<size_t>(col)] = reduced;
    s.path_row[static_cast<size_t>(col)] = row;
    if (reduced < lowest || (reduced == lowest && s.row_of_col[static_cast<size_t>(col)] == -1)) {
      lowest = reduced;
      best_slot = k;
    }
  }
  return best_slot;
}

// A later scan, from a matched row reached at path cost `reached`: relaxes the columns not yet
// final and returns the cheapest one's slot, with the same tie rule.
int64_t scan_row(SolverState& s, int64_t row, double reached, int64_t remaining, double& lowest) {
  const float* row_cost = s.m.values.data() + row * s.m.cols;
  const double row_dual = s.u[static_cast<size_t>(row)];
  int64_t best_slot = -1;
  lowest = kInfinity;
  for (int64_t k = 0; k < remaining; ++k) {
    const int64_t col = s.unscanned[static_cast<size_t>(k)];
    const double reduced = reached + static_cast<double>(row_cost[col]) - row_dual - s.v[static_cast<size_t>(col)];
    double& best = s.path_cost[static_cast<size_t>(col)];
    if (reduced < best) {
      s.path_row[static_cast<size_t>(col)] = row;
      best = reduced;
    }
    if (best < lowest || (best == lowest && s.row_of_col[static_cast<size_t>(col)] == -1)) {
      lowest = best;
      best_slot = k;
    }
  }
  return best_slot;
}

// Searches the cheapest augmenting path from `start_row` to a free column (Dijkstra on reduced
// costs). Returns the free column reached and sets `final_cost` to that path's reduced cost.
int64_t find_augmenting_path(SolverState& s, int64_t start_row, double& final_cost) {
  s.seen_rows.clear();
  s.done_cols.clear();
  int64_t remaining = s.m.cols;
  int64_t row = start_row;
  double lowest = kInfinity;
  while (true) {
    s.seen_rows.push_back(row);
    const int64_t slot = row == start_row ? scan_start_row(s, row, lowest)
                                          : scan_row(s, row, lowest, remaining, lowest);
    // Finite costs always leave a finite path; this guards the invariant, not user input.
    if (slot < 0 || lowest == kInfinity)
      throw std::logic_error("solve_linear_assignment: no augmenting path (internal error)");
    const int64_t col = s.unscanned[static_cast<size_t>(slot)];
    s.done_cols.push_back(col);
    s.unscanned[static_cast<size_t>(slot)] = s.unscanned[static_cast<size_t>(--remaining)];
    if (s.row_of_col[static_cast<size_t>(col)] == -1) {
      final_cost = lowest;
      return col;
    }
    row = s.row_of_col[static_cast<size_t>(col)];
  }
}

// Keeps the reduced costs of the matched pairs at zero after the search, then flips the
// matching along the path so that `start_row` and every row on it get their new column.
void update_duals_and_augment(SolverState& s, int64_t start_row, int64_t sink, double final_cost) {
  s.u[static_cast<size_t>(start_row)] += final_cost;
  for (size_t k = 1; k < s.seen_rows.size(); ++k) {  // [0] is the start row
    const int64_t r = s.seen_rows[k];
    s.u[static_cast<size_t>(r)] += final_cost - s.path_cost[static_cast<size_t>(s.col_of_row[static_cast<size_t>(r)])];
  }
  for (const int64_t c : s.done_cols) s.v[static_cast<size_t>(c)] -= final_cost - s.path_cost[static_cast<size_t>(c)];
  int64_t col = sink;
  while (true) {
    const int64_t row = s.path_row[static_cast<size_t>(col)];
    s.row_of_col[static_cast<size_t>(col)] = row;
    std::swap(s.col_of_row[static_cast<size_t>(row)], col);
    if (row == start_row) break;
  }
}

}  // namespace

std::vector<int64_t> solve_linear_assignment(const float* cost, int64_t rows, int64_t cols, int64_t row_stride) {
  check_arguments(cost, rows, cols, row_stride);
  std::vector<int64_t> assignment(static_cast<size_t>(rows), -1);
  if (rows == 0 || cols == 0) return assignment;

  const WorkingMatrix matrix = make_working_matrix(cost, rows, cols, row_stride);
  SolverState state(matrix);
  for (int64_t row = 0; row < matrix.rows; ++row) {
    double final_cost = 0.0;
    const int64_t sink = find_augmenting_path(state, row, final_cost);
    update_duals_and_augment(state, row, sink, final_cost);
  }
  for (int64_t r = 0; r < matrix.rows; ++r) {
    const int64_t c = state.col_of_row[static_cast<size_t>(r)];
    if (matrix.transposed)
      assignment[static_cast<size_t>(c)] = r;  // working row r is original column r
    else
      assignment[static_cast<size_t>(r)] = c;
  }
  return assignment;
}

}  // namespace libreyolo::sdk::detr

#pragma once
// An exact solver of the rectangular linear assignment problem, for DETR-style set matching.
// It is the shortest-augmenting-path method (Jonker-Volgenant, in the rectangular form of
// Crouse, "On implementing 2D rectangular assignment algorithms", 2016) that
// scipy.optimize.linear_sum_assignment uses, with the same order of column scans and the same
// tie-breaking, so its assignment is scipy's: identical wherever the optimum is unique, and in
// practice also where it is not. Plain arrays only (no LibTorch), so it runs on any host thread.

#include <cstdint>
#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

// Minimises the total cost of a matching of rows to columns in which every row and every
// column is used at most once and min(rows, cols) pairs are made (scipy's rectangular rule:
// the shorter side is fully assigned). cost[r * row_stride + c] is the cost of row r with
// column c; row_stride >= cols lets a padded matrix be solved in place (the columns past `cols`
// are never read). Arithmetic runs in double, on the float values widened exactly, as scipy
// runs on a float32 matrix converted to float64.
// Returns one entry per row: the assigned column, or -1 for a row left unassigned (only when
// rows > cols). rows == 0 or cols == 0 gives all -1 (an empty vector when rows == 0).
// Throws std::invalid_argument on negative sizes, row_stride < cols, a null cost with a
// non-empty matrix, or a NaN or infinite cost (scipy: "matrix contains invalid numeric
// entries").
LIBREYOLO_SDK_API std::vector<int64_t> solve_linear_assignment(const float* cost, int64_t rows, int64_t cols,
                                                               int64_t row_stride);

}  // namespace libreyolo::sdk::detr

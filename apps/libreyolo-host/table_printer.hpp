#pragma once
// Prints left-aligned text tables for the CLI (families, help, option summaries).

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace libreyolo::app {

class TablePrinter {
 public:
  explicit TablePrinter(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  void print(std::ostream& out, const std::string& indent = "") const {
    std::vector<size_t> widths;
    for (const auto& row : rows_) {
      widths.resize(std::max(widths.size(), row.size()), 0);
      for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    }
    for (const auto& row : rows_) {
      std::string line = indent;
      for (size_t c = 0; c < row.size(); ++c) {
        line += row[c];
        if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
      }
      out << line << "\n";
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace libreyolo::app

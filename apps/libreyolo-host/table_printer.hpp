#pragma once
// Prints left-aligned text tables for the CLI (families, help, option summaries).

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace libreyolo::app {

// `text` in lines of at most `width` characters, broken at the last space that fits (a word
// longer than the width is cut where it must be).
std::vector<std::string> wrap_text(const std::string& text, std::size_t width);

class TablePrinter {
 public:
  explicit TablePrinter(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  // Cells of `column` wider than `width` wrap onto lines of their own, at spaces where they can.
  void wrap_column(std::size_t column, std::size_t width) { max_widths_[column] = width; }
  // The last column wraps so that a line fits `width` characters (a terminal's); where that would
  // leave it narrower than `least`, each row's last cell goes on lines of its own below the row,
  // indented, as wide as `width` allows (a paragraph, not a word a line).
  void fit_lines(std::size_t width, std::size_t least = 30) {
    fit_width_ = width;
    least_last_width_ = least;
  }

  void print(std::ostream& out, const std::string& indent = "") const;

 private:
  struct Layout {
    std::vector<std::size_t> widths;
    bool last_below = false;  // the last column under each row instead of beside it
  };
  Layout layout(std::size_t indent) const;

  std::vector<std::vector<std::string>> rows_;
  std::map<std::size_t, std::size_t> max_widths_;
  std::size_t fit_width_ = 0;  // 0: lines as long as their cells
  std::size_t least_last_width_ = 30;
};

}  // namespace libreyolo::app

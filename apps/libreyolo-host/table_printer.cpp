#include "table_printer.hpp"

#include <algorithm>

namespace libreyolo::app {

std::vector<std::string> wrap_text(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string rest = text;
  while (rest.size() > width) {
    std::size_t cut = rest.rfind(' ', width);
    const bool at_space = cut != std::string::npos && cut > 0;
    if (!at_space) cut = width;
    lines.push_back(rest.substr(0, cut));
    rest = rest.substr(at_space ? cut + 1 : cut);
  }
  lines.push_back(rest);
  return lines;
}

namespace {

constexpr std::size_t kBelowIndent = 4;  // a last cell printed below its row starts this far in

bool all_empty(const std::vector<std::string>& row) {
  return std::all_of(row.begin(), row.end(), [](const std::string& cell) { return cell.empty(); });
}

}  // namespace

TablePrinter::Layout TablePrinter::layout(std::size_t indent) const {
  Layout out;
  auto& widths = out.widths;
  for (const auto& row : rows_) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& [column, most] : max_widths_) {
    if (column < widths.size()) widths[column] = std::min(widths[column], most);
  }
  if (fit_width_ > 0 && !widths.empty()) {
    std::size_t used = indent;
    for (std::size_t c = 0; c + 1 < widths.size(); ++c) used += widths[c] + 2;
    const std::size_t room = fit_width_ > used ? fit_width_ - used : 0;
    out.last_below = room < least_last_width_ && widths.size() > 1;
    const std::size_t below = fit_width_ > indent + kBelowIndent ? fit_width_ - indent - kBelowIndent : 1;
    widths.back() = std::min(widths.back(), out.last_below ? below : room);
  }
  return out;
}

void TablePrinter::print(std::ostream& out, const std::string& indent) const {
  const auto [widths, last_below] = layout(indent.size());
  for (const auto& row : rows_) {
    // A header of empty titles is no header (help's command list): no line of blanks for it.
    if (all_empty(row)) continue;
    std::vector<std::vector<std::string>> cells;
    for (std::size_t c = 0; c < row.size(); ++c) cells.push_back(wrap_text(row[c], std::max<std::size_t>(widths[c], 1)));
    std::vector<std::string> below;
    if (last_below && cells.size() == widths.size()) {
      below = cells.back();
      cells.pop_back();
    }
    std::size_t height = 1;
    for (const auto& cell : cells) height = std::max(height, cell.size());
    for (std::size_t l = 0; l < height; ++l) {
      std::string line = indent;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const std::string piece = l < cells[c].size() ? cells[c][l] : "";
        line += piece;
        if (c + 1 < cells.size()) line += std::string(widths[c] - piece.size() + 2, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << "\n";
    }
    for (const auto& piece : below) out << indent << std::string(kBelowIndent, ' ') << piece << "\n";
  }
}

}  // namespace libreyolo::app

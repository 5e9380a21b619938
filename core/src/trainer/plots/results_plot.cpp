#include <cmath>
#include <fstream>
#include <limits>

#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/draw/line_chart.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/run_plots.hpp"
#include "libreyolo/core/util/csv_line.hpp"

namespace libreyolo::core::trainer {
namespace {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> values;  // per column; NaN where a row left it empty
};

double number_or_nan(const std::string& text) {
  if (text.empty()) return std::numeric_limits<double>::quiet_NaN();
  try {
    return std::stod(text);
  } catch (const std::exception&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

Table read_table(const std::filesystem::path& csv) {
  std::ifstream in(csv);
  std::string line;
  if (!in || !std::getline(in, line)) {
    throw Error("cannot plot " + csv.string(), "the file is missing or empty", "let the run write a first epoch");
  }
  Table table;
  table.columns = util::split_csv_line(line);
  table.values.resize(table.columns.size());
  while (std::getline(in, line)) {
    const auto cells = util::split_csv_line(line);
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      table.values[c].push_back(c < cells.size() ? number_or_nan(cells[c]) : std::numeric_limits<double>::quiet_NaN());
    }
  }
  return table;
}

// Bookkeeping, not a curve of the training: the epoch (the x axis), timings, flags and the
// best-so-far columns LibreYOLO's results.csv carries.
// Of LibreYOLO's 18 metrics columns, the four Ultralytics plots ("(B)"); of the learning rates,
// the first group's (the others follow the same schedule, scaled).
bool plotted(const std::string& column) {
  for (const char* skipped : {"epoch", "time", "images_per_second", "validated", "is_best"}) {
    if (column == skipped) return false;
  }
  const auto starts = [&](const std::string& head) { return column.rfind(head, 0) == 0; };
  if (starts("metrics/")) return column.size() > 3 && column.compare(column.size() - 3, 3, "(B)") == 0;
  if (starts("lr/")) return column == "lr/group0";
  return !starts("current_") && column.find("best") == std::string::npos;
}

bool has_a_value(const std::vector<double>& values) {
  for (const double v : values) {
    if (std::isfinite(v)) return true;
  }
  return false;
}

}  // namespace

void plot_results(const std::filesystem::path& results_csv, const std::filesystem::path& png) {
  const auto table = read_table(results_csv);
  std::vector<double> epochs;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (table.columns[c] == "epoch") epochs = table.values[c];
  }
  std::vector<std::size_t> shown;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (plotted(table.columns[c]) && has_a_value(table.values[c])) shown.push_back(c);
  }
  if (shown.empty()) throw Error("cannot plot " + results_csv.string(), "it has no columns to plot", "check the file");
  constexpr int kPanelWidth = 300, kPanelHeight = 240;
  const int rows = shown.size() > 4 ? 2 : 1;
  const int columns = static_cast<int>((shown.size() + rows - 1) / rows);
  draw::Canvas canvas(columns * kPanelWidth, rows * kPanelHeight);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto& values = table.values[shown[i]];
    draw::Series series;
    series.y = values;
    series.x = epochs.size() == values.size() ? epochs : std::vector<double>();
    for (std::size_t r = series.x.size(); r < values.size(); ++r) series.x.push_back(static_cast<double>(r + 1));
    const draw::Panel panel{static_cast<int>(i) % columns * kPanelWidth, static_cast<int>(i) / columns * kPanelHeight,
                            kPanelWidth, kPanelHeight};
    draw::draw_line_chart(canvas, panel, table.columns[shown[i]], {series});
  }
  draw::write_image(png, canvas.image());
}

}  // namespace libreyolo::core::trainer

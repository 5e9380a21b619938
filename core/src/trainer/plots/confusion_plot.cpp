// confusion_matrix_normalized.png as Ultralytics draws it (ConfusionMatrix.plot, normalize=True):
// true classes across, predicted classes down, background last on both, each column divided
// by its sum, shares under 0.005 left blank. Only the classes that occur get a row and a
// column, so an 80-class matrix of a small split stays readable at a fixed picture size.
#include <algorithm>
#include <cstdio>

#include "libreyolo/core/draw/canvas.hpp"
#include "libreyolo/core/draw/colour_scale.hpp"
#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/draw/line_chart.hpp"
#include "libreyolo/core/trainer/run_plots.hpp"

namespace libreyolo::core::trainer {
namespace {

constexpr draw::Rgb kInk{40, 40, 40};
constexpr draw::Rgb kWhite{255, 255, 255};
constexpr double kBlankBelow = 0.005;  // Ultralytics: array[array < 0.005] = nan
constexpr std::size_t kMostAnnotated = 30;  // Ultralytics prints the shares while nc < 30

// Where the grid sits: label room left of and below it, the title above, the colour bar right.
struct Grid {
  std::vector<std::size_t> rows;  // matrix indices shown, background last
  std::vector<std::string> labels;
  double label_scale = 0.5;
  int margin = 0;  // left of the "Predicted" name: what centres the figure across
  int left = 0, top = 0, cell = 0;
  int size() const { return cell * static_cast<int>(rows.size()); }
};

Grid grid_for(const draw::Canvas& canvas, const eval::ConfusionMatrix& matrix, const std::vector<std::string>& names) {
  Grid g;
  g.rows = matrix.classes_present();
  for (const auto k : g.rows) g.labels.push_back(k < names.size() ? names[k] : std::to_string(k));
  g.rows.push_back(matrix.background());
  g.labels.push_back("background");
  const auto n = g.rows.size();
  g.label_scale = n <= 12 ? 0.5 : n <= 30 ? 0.4 : 0.3;
  int widest = 0;
  for (const auto& label : g.labels) widest = std::max(widest, canvas.text_width(label, g.label_scale));
  constexpr int kTitle = 50, kAxisName = 36, kColourBar = 110;
  const int labels = kAxisName + widest + 10;
  g.top = kTitle;
  const int room_across = kMatrixWidth - labels - kColourBar, room_down = kMatrixHeight - kTitle - widest - 10 - kAxisName;
  g.cell = std::max(1, std::min(room_across, room_down) / static_cast<int>(n));
  g.margin = std::max(0, (kMatrixWidth - labels - g.size() - kColourBar) / 2);
  g.left = g.margin + labels;
  return g;
}

void draw_cells(draw::Canvas& canvas, const Grid& g, const eval::ConfusionMatrix& matrix) {
  const bool annotate = g.rows.size() < kMostAnnotated;
  const double value_scale = std::clamp(g.cell / 110.0, 0.25, 0.6);
  for (std::size_t r = 0; r < g.rows.size(); ++r) {
    for (std::size_t c = 0; c < g.rows.size(); ++c) {
      const double share = matrix.normalised(g.rows[r], g.rows[c]);
      const double x = g.left + static_cast<double>(c) * g.cell, y = g.top + static_cast<double>(r) * g.cell;
      if (share < kBlankBelow) continue;
      const auto fill = draw::blues(share);
      canvas.rectangle({x, y}, {x + g.cell - 1, y + g.cell - 1}, fill, -1);
      if (!annotate) continue;
      char text[16];
      std::snprintf(text, sizeof text, "%.2f", share);
      const double width = canvas.text_width(text, value_scale);
      canvas.text(text, {x + (g.cell - width) / 2.0, y + g.cell / 2.0 + 9 * value_scale}, value_scale,
                  share > 0.5 ? kWhite : kInk);
    }
  }
  canvas.rectangle({static_cast<double>(g.left), static_cast<double>(g.top)},
                   {static_cast<double>(g.left + g.size()), static_cast<double>(g.top + g.size())}, kInk, 1);
}

void draw_labels(draw::Canvas& canvas, const Grid& g) {
  const double s = g.label_scale;
  for (std::size_t i = 0; i < g.labels.size(); ++i) {
    const double centre = g.left + (static_cast<double>(i) + 0.5) * g.cell;
    const double row_centre = g.top + (static_cast<double>(i) + 0.5) * g.cell;
    canvas.text(g.labels[i], {g.left - 6.0 - canvas.text_width(g.labels[i], s), row_centre + 8 * s}, s, kInk);
    canvas.text_upwards(g.labels[i], {centre, g.top + g.size() + 6.0}, s, kInk);
  }
  int widest = 0;
  for (const auto& label : g.labels) widest = std::max(widest, canvas.text_width(label, s));
  const double middle = g.left + g.size() / 2.0;
  canvas.text("True", {middle - canvas.text_width("True", 0.6) / 2.0, g.top + g.size() + widest + 36.0}, 0.6, kInk);
  canvas.text_upwards("Predicted", {g.margin + 14.0, g.top + g.size() / 2.0 - canvas.text_width("Predicted", 0.6) / 2.0}, 0.6, kInk);
  const std::string title = "Confusion Matrix Normalized";
  canvas.text(title, {kMatrixWidth / 2.0 - canvas.text_width(title, 0.7) / 2.0, 32}, 0.7, kInk);
}

// The colour bar: the map from 0 (bottom) to 1 (top) beside the grid, ticked.
void draw_colour_bar(draw::Canvas& canvas, const Grid& g) {
  const double left = g.left + g.size() + 20.0, right = left + 20, top = g.top, bottom = g.top + g.size();
  for (int y = static_cast<int>(top); y < static_cast<int>(bottom); ++y) {
    const auto colour = draw::blues((bottom - y) / (bottom - top));
    canvas.line({left, static_cast<double>(y)}, {right, static_cast<double>(y)}, colour, 1);
  }
  canvas.rectangle({left, top}, {right, bottom}, kInk, 1);
  for (const double t : draw::nice_ticks(0, 1, 5)) {
    const double y = bottom - t * (bottom - top);
    canvas.line({right, y}, {right + 4, y}, kInk, 1);
    canvas.text(draw::tick_label(t), {right + 8, y + 5}, 0.4, kInk);
  }
}

}  // namespace

void plot_confusion_matrix(const eval::ConfusionMatrix& matrix, const std::vector<std::string>& names,
                           const std::filesystem::path& png) {
  draw::Canvas canvas(kMatrixWidth, kMatrixHeight);
  const Grid grid = grid_for(canvas, matrix, names);
  draw_cells(canvas, grid, matrix);
  draw_labels(canvas, grid);
  draw_colour_bar(canvas, grid);
  draw::write_image(png, canvas.image());
}

}  // namespace libreyolo::core::trainer

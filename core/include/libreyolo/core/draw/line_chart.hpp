#pragma once
// Small line charts for training plots (results.png, PR_curve.png, F1_curve.png): a framed
// panel with a title, ticks on both axes and one or more series; optionally fixed axis ranges,
// axis names and a legend. The tick arithmetic is separate and tested on its own.

#include <optional>
#include <string>
#include <vector>

#include "libreyolo/core/draw/canvas.hpp"

namespace libreyolo::core::draw {

struct Series {
  std::vector<double> x, y;  // equal lengths; non-finite points are left out
  Rgb colour{31, 119, 180};
  int thickness = 2;
};

struct Panel {
  int left = 0, top = 0, width = 0, height = 0;
};

struct AxisRange {
  double low = 0, high = 1;
};

struct LegendEntry {
  std::string text;
  Rgb colour;
};

// What a chart may add to the plain panel.
struct ChartLayout {
  // Unset: the range of the data (widened when flat). Set: this range, whatever the data.
  std::optional<AxisRange> x_range, y_range;
  std::string x_label, y_label;
  // Listed right of the plot, which gives up the room they take (as Ultralytics' curves put
  // their legend beside the axes, not over the lines).
  std::vector<LegendEntry> legend;
  double text_scale = 0.4;  // tick labels; the title is 0.1 larger
};

// Round tick values covering [low, high]: steps of 1, 2 or 5 x 10^k, about `target` of them.
std::vector<double> nice_ticks(double low, double high, int target = 5);

// "0.25", "1.2e-05", "300": short tick labels.
std::string tick_label(double value);

// The panel framed, titled, ticked, with every series in the range of all of them.
void draw_line_chart(Canvas& canvas, const Panel& panel, const std::string& title, const std::vector<Series>& series,
                     const ChartLayout& layout = {});

}  // namespace libreyolo::core::draw

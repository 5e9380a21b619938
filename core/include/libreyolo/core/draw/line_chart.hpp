#pragma once
// Small line charts for training plots (results.png): a framed panel with a title, ticks on
// both axes and one or more series. The tick arithmetic is separate and tested on its own.

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

// Round tick values covering [low, high]: steps of 1, 2 or 5 x 10^k, about `target` of them.
std::vector<double> nice_ticks(double low, double high, int target = 5);

// "0.25", "1.2e-05", "300": short tick labels.
std::string tick_label(double value);

// The panel framed, titled, ticked, with every series in the range of all of them.
void draw_line_chart(Canvas& canvas, const Panel& panel, const std::string& title, const std::vector<Series>& series);

}  // namespace libreyolo::core::draw

#include "libreyolo/core/draw/line_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace libreyolo::core::draw {
namespace {

struct Range {
  double low = std::numeric_limits<double>::infinity(), high = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (std::isfinite(v)) low = std::min(low, v), high = std::max(high, v);
  }
  bool empty() const { return low > high; }
};

// A flat series still needs a span to draw in: widen around it.
Range padded(Range r) {
  if (r.empty()) return {0, 1};
  if (r.high - r.low < 1e-12) {
    const double pad = r.low != 0 ? std::abs(r.low) * 0.1 : 0.5;
    return {r.low - pad, r.high + pad};
  }
  return r;
}

constexpr Rgb kInk{40, 40, 40};
constexpr Rgb kGrid{225, 225, 225};
constexpr double kTextScale = 0.4;

}  // namespace

std::vector<double> nice_ticks(double low, double high, int target) {
  if (!(high > low) || target < 1) return {low};
  const double rough = (high - low) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
  double step = magnitude * 10;
  for (const double m : {1.0, 2.0, 5.0}) {
    if (magnitude * m >= rough) {
      step = magnitude * m;
      break;
    }
  }
  std::vector<double> ticks;
  // Whole multiples of the step, not a running sum: no drift past the last tick.
  const auto first = static_cast<long long>(std::ceil(low / step - 1e-9));
  const auto last = static_cast<long long>(std::floor(high / step + 1e-9));
  for (long long k = first; k <= last; ++k) ticks.push_back(static_cast<double>(k) * step);
  return ticks;
}

std::string tick_label(double value) {
  char text[32];
  const double magnitude = std::abs(value);
  if (magnitude != 0 && (magnitude < 1e-3 || magnitude >= 1e5)) {
    std::snprintf(text, sizeof text, "%.1e", value);
  } else {
    std::snprintf(text, sizeof text, "%.4g", value);
  }
  return text;
}

namespace {

// Where the data goes inside the panel, and the maps from data to pixels.
struct PlotArea {
  double left, right, top, bottom;
  Range xs, ys;
  double to_x(double x) const { return left + (x - xs.low) / (xs.high - xs.low) * (right - left); }
  double to_y(double y) const { return bottom - (y - ys.low) / (ys.high - ys.low) * (bottom - top); }
};

PlotArea plot_area(const Canvas& canvas, const Panel& panel, const std::vector<Series>& series, const ChartLayout& layout) {
  Range xs, ys;
  for (const auto& s : series) {
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) xs.add(s.x[i]), ys.add(s.y[i]);
    }
  }
  xs = layout.x_range ? Range{layout.x_range->low, layout.x_range->high} : padded(xs);
  ys = layout.y_range ? Range{layout.y_range->low, layout.y_range->high} : padded(ys);
  // Room for the title above, tick labels left and below, axis names and the legend.
  const double m = layout.text_scale / kTextScale;
  int legend_width = 0;
  for (const auto& entry : layout.legend) legend_width = std::max(legend_width, canvas.text_width(entry.text, layout.text_scale));
  PlotArea area{panel.left + 52 * m + (layout.y_label.empty() ? 0 : 22 * m),
                panel.left + panel.width - 10 * m - (layout.legend.empty() ? 0 : legend_width + 50 * m),
                panel.top + 26 * m,
                panel.top + panel.height - 24 * m - (layout.x_label.empty() ? 0 : 22 * m),
                xs, ys};
  return area;
}

void draw_ticks(Canvas& canvas, const PlotArea& a, double scale) {
  const double m = scale / kTextScale;
  for (const double t : nice_ticks(a.ys.low, a.ys.high, 4)) {
    canvas.line({a.left, a.to_y(t)}, {a.right, a.to_y(t)}, kGrid);
    const auto label = tick_label(t);
    canvas.text(label, {a.left - 4 * m - canvas.text_width(label, scale), a.to_y(t) + 4 * m}, scale, kInk);
  }
  for (const double t : nice_ticks(a.xs.low, a.xs.high, 5)) {
    const auto label = tick_label(t);
    canvas.text(label, {a.to_x(t) - canvas.text_width(label, scale) / 2.0, a.bottom + 16 * m}, scale, kInk);
  }
}

void draw_names(Canvas& canvas, const Panel& panel, const PlotArea& a, const std::string& title, const ChartLayout& layout) {
  const double scale = layout.text_scale, m = scale / kTextScale, title_scale = scale + 0.1;
  canvas.text(title, {panel.left + panel.width / 2.0 - canvas.text_width(title, title_scale) / 2.0, panel.top + 18.0 * m},
              title_scale, kInk);
  if (!layout.x_label.empty()) {
    const double centre = (a.left + a.right) / 2.0 - canvas.text_width(layout.x_label, scale) / 2.0;
    canvas.text(layout.x_label, {centre, a.bottom + 38 * m}, scale, kInk);
  }
  if (!layout.y_label.empty()) {
    const double top = (a.top + a.bottom) / 2.0 - canvas.text_width(layout.y_label, scale) / 2.0;
    canvas.text_upwards(layout.y_label, {panel.left + 10 * m, top}, scale, kInk);
  }
  for (std::size_t i = 0; i < layout.legend.size(); ++i) {
    const double y = a.top + 12 * m + static_cast<double>(i) * 20 * m;
    canvas.line({a.right + 12 * m, y}, {a.right + 36 * m, y}, layout.legend[i].colour, 3);
    canvas.text(layout.legend[i].text, {a.right + 42 * m, y + 5 * m}, scale, kInk);
  }
}

}  // namespace

void draw_line_chart(Canvas& canvas, const Panel& panel, const std::string& title, const std::vector<Series>& series,
                     const ChartLayout& layout) {
  const PlotArea area = plot_area(canvas, panel, series, layout);
  draw_ticks(canvas, area, layout.text_scale);
  canvas.rectangle({area.left, area.top}, {area.right, area.bottom}, kInk, 1);
  draw_names(canvas, panel, area, title, layout);
  for (const auto& s : series) {
    std::vector<Point> points;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) points.push_back({area.to_x(s.x[i]), area.to_y(s.y[i])});
    }
    canvas.polyline(points, s.colour, s.thickness);
  }
}

}  // namespace libreyolo::core::draw

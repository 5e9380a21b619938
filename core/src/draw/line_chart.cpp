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

void draw_line_chart(Canvas& canvas, const Panel& panel, const std::string& title, const std::vector<Series>& series) {
  Range xs, ys;
  for (const auto& s : series) {
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) xs.add(s.x[i]), ys.add(s.y[i]);
    }
  }
  xs = padded(xs), ys = padded(ys);
  // Room for the title above and tick labels left and below.
  const double left = panel.left + 52, right = panel.left + panel.width - 10;
  const double top = panel.top + 26, bottom = panel.top + panel.height - 24;
  const auto to_x = [&](double x) { return left + (x - xs.low) / (xs.high - xs.low) * (right - left); };
  const auto to_y = [&](double y) { return bottom - (y - ys.low) / (ys.high - ys.low) * (bottom - top); };
  for (const double t : nice_ticks(ys.low, ys.high, 4)) {
    canvas.line({left, to_y(t)}, {right, to_y(t)}, kGrid);
    const auto label = tick_label(t);
    canvas.text(label, {left - 4 - canvas.text_width(label, kTextScale), to_y(t) + 4}, kTextScale, kInk);
  }
  for (const double t : nice_ticks(xs.low, xs.high, 5)) {
    const auto label = tick_label(t);
    canvas.text(label, {to_x(t) - canvas.text_width(label, kTextScale) / 2.0, bottom + 16}, kTextScale, kInk);
  }
  canvas.rectangle({left, top}, {right, bottom}, kInk, 1);
  canvas.text(title, {panel.left + panel.width / 2.0 - canvas.text_width(title, 0.5) / 2.0, panel.top + 18.0}, 0.5, kInk);
  for (const auto& s : series) {
    std::vector<Point> points;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) points.push_back({to_x(s.x[i]), to_y(s.y[i])});
    }
    canvas.polyline(points, s.colour, s.thickness);
  }
}

}  // namespace libreyolo::core::draw

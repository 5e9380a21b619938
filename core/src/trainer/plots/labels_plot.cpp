#include <algorithm>

#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/draw/line_chart.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/run_plots.hpp"

namespace libreyolo::core::trainer {
namespace {

constexpr int kPanel = 400;
constexpr draw::Rgb kInk{40, 40, 40};
constexpr draw::Rgb kBar{31, 119, 180};
constexpr std::size_t kMostDots = 20000;  // enough to see the distribution; more only blots

// Instances per class, for the classes that have any: a bar each, named when they fit.
void draw_class_histogram(draw::Canvas& canvas, const std::vector<std::size_t>& counts,
                          const std::vector<std::string>& names) {
  std::vector<std::size_t> present;
  std::size_t most = 1;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    if (counts[c] > 0) present.push_back(c), most = std::max(most, counts[c]);
  }
  const double left = 50, right = 2 * kPanel - 10.0, top = 30, bottom = kPanel - 60.0;
  canvas.text("instances per class", {left, 20}, 0.5, kInk);
  canvas.rectangle({left, top}, {right, bottom}, kInk, 1);
  for (const double t : draw::nice_ticks(0, static_cast<double>(most), 4)) {
    const double y = bottom - t / most * (bottom - top);
    const auto label = draw::tick_label(t);
    canvas.text(label, {left - 4 - canvas.text_width(label, 0.4), y + 4}, 0.4, kInk);
  }
  if (present.empty()) return;
  const double slot = (right - left) / static_cast<double>(present.size());
  for (std::size_t i = 0; i < present.size(); ++i) {
    const std::size_t c = present[i];
    const double x = left + slot * static_cast<double>(i);
    canvas.rectangle({x + slot * 0.15, bottom - static_cast<double>(counts[c]) / most * (bottom - top)},
                     {x + slot * 0.85, bottom}, kBar, -1);
    const std::string name = c < names.size() ? names[c] : std::to_string(c);
    if (canvas.text_width(name, 0.35) < slot * 2.2 || present.size() <= 20) {
      // Alternate two rows of names so neighbours do not overlap.
      canvas.text(name, {x + slot / 2 - canvas.text_width(name, 0.35) / 2.0, bottom + 14.0 + (i % 2) * 14.0}, 0.35, kInk);
    }
  }
}

void draw_scatter(draw::Canvas& canvas, const draw::Panel& panel, const std::string& title,
                  const std::vector<draw::Point>& points) {
  // The frame and ticks of a 0..1 chart, then the dots.
  draw::Series corners;
  corners.x = {0, 1};
  corners.y = {0, 1};
  corners.thickness = 0;
  corners.colour = {255, 255, 255};
  draw::draw_line_chart(canvas, panel, title, {corners});
  const double left = panel.left + 52, right = panel.left + panel.width - 10;
  const double top = panel.top + 26, bottom = panel.top + panel.height - 24;
  const std::size_t step = std::max<std::size_t>(1, points.size() / kMostDots);
  for (std::size_t i = 0; i < points.size(); i += step) {
    canvas.dot({left + points[i].x * (right - left), bottom - points[i].y * (bottom - top)}, 1, kBar);
  }
}

}  // namespace

void plot_labels(const std::vector<std::vector<data::LabelBox>>& labels, const std::vector<std::string>& names,
                 const std::filesystem::path& jpg) {
  std::vector<std::size_t> counts(names.size(), 0);
  std::vector<draw::Point> centres, sizes;
  for (const auto& image : labels) {
    for (const auto& box : image) {
      if (box.class_id >= 0 && static_cast<std::size_t>(box.class_id) < counts.size()) ++counts[box.class_id];
      centres.push_back({box.cx, 1.0 - box.cy});  // image y grows downwards, the chart's upwards
      sizes.push_back({box.w, box.h});
    }
  }
  draw::Canvas canvas(2 * kPanel, 2 * kPanel);
  draw_class_histogram(canvas, counts, names);
  draw_scatter(canvas, {0, kPanel, kPanel, kPanel}, "box centres x, y (y up)", centres);
  draw_scatter(canvas, {kPanel, kPanel, kPanel, kPanel}, "box width, height", sizes);
  draw::write_image(jpg, canvas.image());
}

}  // namespace libreyolo::core::trainer

// PR_curve.png and F1_curve.png, laid out as Ultralytics' plot_pr_curve and plot_mc_curve:
// one thin grey line per class with instances (never a legend of 80 names), their mean thick
// and blue, the mean's figure in the legend beside the axes.
#include <algorithm>
#include <cstdio>

#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/draw/line_chart.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/eval/f1_precision_recall.hpp"
#include "libreyolo/core/trainer/run_plots.hpp"

namespace libreyolo::core::trainer {
namespace {

constexpr draw::Rgb kClassGrey{128, 128, 128};
constexpr draw::Rgb kMeanBlue{0, 0, 255};
constexpr double kTextScale = 0.5;

draw::Series class_line(std::vector<double> x, std::vector<double> y) {
  draw::Series series;
  series.x = std::move(x);
  series.y = std::move(y);
  series.colour = kClassGrey;
  series.thickness = 1;
  return series;
}

void write_curve_chart(std::vector<draw::Series> series, const std::string& title, draw::ChartLayout layout,
                       const std::filesystem::path& png) {
  layout.x_range = layout.y_range = draw::AxisRange{0, 1};
  layout.text_scale = kTextScale;
  draw::Canvas canvas(kCurveWidth, kCurveHeight);
  draw::draw_line_chart(canvas, {0, 0, kCurveWidth, kCurveHeight}, title, series, layout);
  draw::write_image(png, canvas.image());
}

Error nothing_to_draw(const std::filesystem::path& png) {
  return Error("cannot draw " + png.filename().string(), "the validation split has no labelled objects",
               "validate on a split whose labels hold objects");
}

std::string formatted(const char* format, double a, double b = 0) {
  char text[96];
  std::snprintf(text, sizeof text, format, a, b);
  return text;
}

}  // namespace

void plot_pr_curve(const eval::CocoEvaluation& evaluation, const std::filesystem::path& png) {
  const auto& thresholds = eval::recall_thresholds();
  const std::vector<double> recall(thresholds.begin(), thresholds.end());
  std::vector<draw::Series> series;
  std::vector<double> mean(recall.size(), 0.0);
  for (const auto& c : evaluation.per_class) {
    if (c.instances == 0) continue;  // no curve to draw: nothing to recall
    std::vector<double> precision;
    for (std::size_t r = 0; r < recall.size(); ++r) {
      precision.push_back(std::max(0.0, evaluation.curves.precision(eval::kIou50Index, r, static_cast<std::size_t>(c.class_id),
                                                                     eval::AreaRange::kAll,
                                                                     eval::kMaxDetectionsLargestIndex)));
      mean[r] += precision.back();
    }
    series.push_back(class_line(recall, std::move(precision)));
  }
  if (series.empty()) throw nothing_to_draw(png);
  for (auto& m : mean) m /= static_cast<double>(series.size());
  // The mean curve's average over the 101 thresholds is mAP50 itself.
  series.push_back({recall, mean, kMeanBlue, 3});
  draw::ChartLayout layout;
  layout.x_label = "Recall";
  layout.y_label = "Precision";
  layout.legend = {{formatted("all classes %.3f mAP@0.5", std::max(0.0, evaluation.stats.ap50())), kMeanBlue}};
  write_curve_chart(std::move(series), "Precision-Recall Curve", layout, png);
}

void plot_f1_curve(const eval::CocoEvaluation& evaluation, const std::filesystem::path& png) {
  const auto& curves = evaluation.confidence_curves;
  if (curves.empty()) throw nothing_to_draw(png);
  std::vector<double> confidence;
  for (std::size_t j = 0; j < eval::kConfidenceSamples; ++j) confidence.push_back(eval::confidence_sample(j));
  std::vector<draw::Series> series;
  for (const auto& c : curves) series.push_back(class_line(confidence, c.f1));
  const auto mean = eval::smoothed(eval::mean_f1(curves), 0.05);
  const auto best = static_cast<std::size_t>(std::max_element(mean.begin(), mean.end()) - mean.begin());
  series.push_back({confidence, mean, kMeanBlue, 3});
  draw::ChartLayout layout;
  layout.x_label = "Confidence";
  layout.y_label = "F1";
  layout.legend = {{formatted("all classes F1 %.2f at %.3f", mean[best], eval::confidence_sample(best)), kMeanBlue}};
  write_curve_chart(std::move(series), "F1-Confidence Curve", layout, png);
}

}  // namespace libreyolo::core::trainer

#include "libreyolo/core/eval/report_format.hpp"

#include <algorithm>
#include <iomanip>
#include <locale>
#include <sstream>
#include <vector>

namespace libreyolo::core::eval {
namespace {

// Display width of UTF-8 text, counted in code points, so non-ASCII class names stay aligned
// (wide CJK glyphs aside).
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string pad_right(const std::string& text, std::size_t width) {
  const std::size_t shown = display_width(text);
  return shown >= width ? text : text + std::string(width - shown, ' ');
}

// Fixed-point text that ignores the process locale (printf's %f would honour a decimal comma).
std::string fixed(double value, int decimals) {
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out << std::fixed << std::setprecision(decimals) << value;
  return out.str();
}

std::string format_metric(double value) { return value < 0.0 ? "-" : fixed(value, 3); }

struct TableRow {
  std::string name;
  std::size_t images;
  std::size_t instances;
  double precision;
  double recall;
  double ap50;
  double ap50_95;
};

}  // namespace

std::string format_class_table(const CocoEvaluation& evaluation) {
  std::vector<TableRow> rows;
  rows.push_back({"all", evaluation.images, evaluation.instances, evaluation.precision, evaluation.recall,
                  evaluation.stats.ap50(), evaluation.stats.ap()});
  for (const ClassMetrics& metrics : evaluation.per_class) {
    if (metrics.instances == 0) continue;  // nothing to find: a row of dashes says nothing
    rows.push_back({metrics.name, metrics.images, metrics.instances, metrics.precision, metrics.recall, metrics.ap50,
                    metrics.ap50_95});
  }

  std::size_t name_width = display_width("Class");
  for (const TableRow& row : rows) name_width = std::max(name_width, display_width(row.name));

  constexpr int kColumn = 11;  // Ultralytics' %11s
  std::ostringstream out;
  out.imbue(std::locale::classic());  // counts without thousands separators
  out << pad_right("Class", name_width);
  for (const char* title : {"Images", "Instances", "P", "R", "mAP50", "mAP50-95"}) out << std::setw(kColumn) << title;
  out << '\n';
  for (const TableRow& row : rows) {
    out << pad_right(row.name, name_width) << std::setw(kColumn) << row.images << std::setw(kColumn) << row.instances;
    for (double value : {row.precision, row.recall, row.ap50, row.ap50_95}) {
      out << std::setw(kColumn) << format_metric(value);
    }
    out << '\n';
  }
  return out.str();
}

std::string format_coco_summary(const CocoStats& stats) {
  const auto& definitions = coco_stat_definitions();
  const auto& ranges = area_ranges();
  const auto& thresholds = iou_thresholds();
  std::ostringstream out;
  out.imbue(std::locale::classic());
  for (std::size_t i = 0; i < kCocoStatCount; ++i) {
    const CocoStatDefinition& definition = definitions[i];
    const std::string iou = definition.all_iou_thresholds
                                ? fixed(thresholds.front(), 2) + ":" + fixed(thresholds.back(), 2)
                                : fixed(thresholds[definition.iou_index], 2);
    const char* title = definition.is_average_precision ? "Average Precision" : "Average Recall";
    const char* kind = definition.is_average_precision ? "(AP)" : "(AR)";
    const char* area = ranges[static_cast<std::size_t>(definition.area)].label;
    // pycocotools: ' {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} ] = {:0.3f}'
    out << ' ' << std::left << std::setw(18) << title << ' ' << kind << " @[ IoU=" << std::setw(9)
        << iou << " | area=" << std::right << std::setw(6) << area << " | maxDets=" << std::setw(3)
        << kMaxDetections[definition.max_detections_index] << " ] = " << fixed(stats.values[i], 3)
        << '\n';
  }
  return out.str();
}

}  // namespace libreyolo::core::eval

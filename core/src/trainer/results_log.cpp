#include "libreyolo/core/trainer/results_log.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <variant>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/json_writer.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::trainer {
namespace {

// A cell: empty (not validated, or a diverged loss), a number, an integer or text.
using Cell = std::variant<std::monostate, double, std::int64_t, std::string>;
using Row = std::vector<std::pair<std::string, Cell>>;

void append_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::app);
  out << text;
  if (!out) {
    throw Error("cannot append to " + file.string(), "the write failed",
                "check free disk space and permissions of the run folder");
  }
}

// COCO's -1 (nothing to average) reads as 0, as LibreYOLO's evaluator reports it.
double metric(double coco_value) { return std::max(0.0, coco_value); }

double loss_value(const EpochRecord& r, const std::string& name) {
  double value = 0;
  for (const auto& [n, v] : r.train_losses) {
    if (n == name) value = v;
  }
  return value;
}

Cell when(bool present, Cell cell) { return present ? std::move(cell) : Cell{}; }

Row row_of(const EpochRecord& r, const std::vector<std::string>& loss_names, std::size_t lr_groups) {
  const bool best = r.best_epoch > 0;
  Row row = {{"epoch", std::int64_t{r.epoch}},
             {"time", r.seconds},
             {"images_per_second", r.images_per_second},
             {"train/loss", total_loss(r)},
             {"validated", std::int64_t{r.validated}},
             {"is_best", std::int64_t{r.is_best}},
             {"current_metric", when(r.validated, metric(r.stats.ap()))},
             {"current_metric_name", when(r.validated, std::string(kBestMetricName))},
             {"best_metric", when(best, r.best_metric)},
             {"best_metric_name", when(best, std::string(kBestMetricName))},
             {"best_epoch", when(best, std::int64_t{r.best_epoch})}};
  for (const auto& name : loss_names) row.emplace_back("train/" + name + "_loss", loss_value(r, name));
  for (const auto& [name, value] : validation_metrics(r.stats)) row.emplace_back(name, when(r.validated, value));
  for (std::size_t g = 0; g < lr_groups; ++g) {
    row.emplace_back("lr/group" + std::to_string(g), g < r.learning_rates.size() ? Cell{r.learning_rates[g]} : Cell{});
  }
  return row;
}

std::string csv_cell(const Cell& cell) {
  if (const auto* number = std::get_if<double>(&cell)) return plain_decimal(*number);
  if (const auto* integer = std::get_if<std::int64_t>(&cell)) return std::to_string(*integer);
  if (const auto* text = std::get_if<std::string>(&cell)) return *text;
  return {};
}

// One metrics.jsonl line: the CSV row's columns under the same names; empty cells and a
// diverged (NaN) loss are null, which keeps the line valid JSON.
std::string json_line(const Row& row) {
  std::ostringstream line;
  util::JsonWriter json(line);
  json.begin_object(true);
  for (const auto& [name, cell] : row) {
    if (const auto* number = std::get_if<double>(&cell)) {
      json.member_general(name, *number, 10);
    } else if (const auto* integer = std::get_if<std::int64_t>(&cell)) {
      json.member(name, *integer);
    } else if (const auto* text = std::get_if<std::string>(&cell)) {
      json.member(name, *text);
    } else {
      json.key(name).null();
    }
  }
  json.end_object();
  return line.str();
}

}  // namespace

double total_loss(const EpochRecord& r) {
  return std::accumulate(r.train_losses.begin(), r.train_losses.end(), 0.0,
                         [](double sum, const auto& component) { return sum + component.second; });
}

// Its precision and recall are COCO's means over the whole table (precision[:, :, :, all, 100]
// and recall[:, :, all, 100]): the same numbers as mAP50-95 and AR100, so they are written
// from those.
std::vector<std::pair<std::string, double>> validation_metrics(const eval::CocoStats& s) {
  return {{"metrics/precision", metric(s.ap())},     {"metrics/recall", metric(s.ar100())},
          {"metrics/mAP50-95", metric(s.ap())},      {"metrics/mAP50", metric(s.ap50())},
          {"metrics/mAP75", metric(s.ap75())},       {"metrics/precision(B)", metric(s.ap())},
          {"metrics/recall(B)", metric(s.ar100())},  {"metrics/mAP50(B)", metric(s.ap50())},
          {"metrics/mAP50-95(B)", metric(s.ap())},   {"metrics/mAP_small", metric(s.ap_small())},
          {"metrics/mAP_medium", metric(s.ap_medium())}, {"metrics/mAP_large", metric(s.ap_large())},
          {"metrics/AR1", metric(s.ar1())},          {"metrics/AR10", metric(s.ar10())},
          {"metrics/AR100", metric(s.ar100())},      {"metrics/AR_small", metric(s.ar_small())},
          {"metrics/AR_medium", metric(s.ar_medium())}, {"metrics/AR_large", metric(s.ar_large())}};
}

std::string plain_decimal(double value) {
  if (!std::isfinite(value)) return {};
  char buffer[400];  // fixed notation of the largest double needs 309 digits
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buffer, end) : std::string{};
}

std::vector<std::string> results_columns(const std::vector<std::string>& loss_names, std::size_t lr_groups) {
  std::vector<std::string> columns;
  for (const auto& [name, cell] : row_of(EpochRecord{}, loss_names, lr_groups)) columns.push_back(name);
  return columns;
}

ResultsLog::ResultsLog(const fs::path& folder, const std::vector<std::string>& loss_names, std::size_t lr_groups,
                       bool append)
    : csv_path_(folder / "results.csv"),
      jsonl_path_(folder / "metrics.jsonl"),
      loss_names_(loss_names),
      lr_groups_(lr_groups) {
  if (append && fs::exists(csv_path_)) return;
  std::string header;
  for (const auto& column : results_columns(loss_names_, lr_groups_)) header += (header.empty() ? "" : ",") + column;
  std::ofstream(csv_path_, std::ios::trunc) << header << "\n";
  std::ofstream(jsonl_path_, std::ios::trunc);
}

void ResultsLog::write(const EpochRecord& r) {
  const auto row = row_of(r, loss_names_, lr_groups_);
  std::string csv;
  for (std::size_t i = 0; i < row.size(); ++i) csv += (i == 0 ? "" : ",") + csv_cell(row[i].second);
  append_text(csv_path_, csv + "\n");
  append_text(jsonl_path_, json_line(row));
}

}  // namespace libreyolo::core::trainer

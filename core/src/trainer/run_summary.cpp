#include "libreyolo/core/trainer/run_summary.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "libreyolo/core/checkpoint/atomic_file.hpp"
#include "libreyolo/core/util/csv_line.hpp"
#include "libreyolo/core/util/json_writer.hpp"

namespace libreyolo::core::trainer {
namespace {

using util::JsonWriter;
using Numbers = std::vector<std::pair<std::string, double>>;

// Keys are written in sorted order by hand, member by member, as Python's sort_keys=True
// orders them (by code point: "val_metrics" before "validated").

void optional_number(JsonWriter& json, std::string_view key, const std::optional<double>& value) {
  json.key(key);
  if (value) json.value_exact(*value); else json.null();
}

void optional_integer(JsonWriter& json, std::string_view key, const std::optional<int>& value) {
  json.key(key);
  if (value) json.value(*value); else json.null();
}

void optional_text(JsonWriter& json, std::string_view key, const std::optional<std::string>& value) {
  json.key(key);
  if (value) json.value(*value); else json.null();
}

void write_numbers(JsonWriter& json, Numbers items) {
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json.begin_object();
  for (const auto& [name, value] : items) json.member_exact(name, value);
  json.end_object();
}

Numbers learning_rates(const EpochRecord& r) {
  Numbers rates;
  for (std::size_t g = 0; g < r.learning_rates.size(); ++g) rates.emplace_back("group" + std::to_string(g), r.learning_rates[g]);
  return rates;
}

Numbers metrics_of(const EpochRecord& r) { return r.validated ? validation_metrics(r.stats) : Numbers{}; }

// One epoch as LibreYOLO's _event_to_dict writes it into results.epoch_metrics.
void write_epoch(JsonWriter& json, const RunSummary& s, const EpochRecord& r) {
  const bool best = r.best_epoch > 0;
  json.begin_object();
  optional_integer(json, "best_epoch", best ? std::optional<int>(r.best_epoch) : std::nullopt);
  optional_number(json, "best_metric", best ? std::optional<double>(r.best_metric) : std::nullopt);
  optional_text(json, "best_metric_name", best ? std::optional<std::string>(kBestMetricName) : std::nullopt);
  optional_number(json, "current_metric", r.validated ? std::optional<double>(std::max(0.0, r.stats.ap())) : std::nullopt);
  optional_text(json, "current_metric_name", r.validated ? std::optional<std::string>(kBestMetricName) : std::nullopt);
  json.member("epoch", r.epoch);
  json.member_exact("epoch_seconds", r.seconds);
  json.member("is_best", r.is_best);
  write_numbers(json.key("lr"), learning_rates(r));
  json.member("model_family", s.model_family);
  json.member("model_size", s.model_size);
  json.member("save_dir", s.save_dir);
  json.member("task", s.task);
  json.member("total_epochs", s.total_epochs);
  json.member_exact("train_loss", total_loss(r));
  write_numbers(json.key("train_loss_items"), r.train_losses);
  write_numbers(json.key("val_metrics"), metrics_of(r));
  json.member("validated", r.validated);
  json.end_object();
}

std::optional<double> final_loss(const RunSummary& s) {
  if (s.epochs.empty()) return std::nullopt;  // no epoch in this process
  return total_loss(s.epochs.back());
}

// Per-epoch lists, one entry per epoch of this process: LibreYOLO's _build_train_results.
void write_epoch_lists(JsonWriter& json, const RunSummary& s) {
  json.key("epoch_loss_items").begin_array();
  for (const auto& r : s.epochs) write_numbers(json, r.train_losses);
  json.end_array();
  json.key("epoch_losses").begin_array();
  for (const auto& r : s.epochs) json.value_exact(total_loss(r));
  json.end_array();
  json.key("epoch_lrs").begin_array();
  for (const auto& r : s.epochs) write_numbers(json, learning_rates(r));
  json.end_array();
  json.key("epoch_metrics").begin_array();
  for (const auto& r : s.epochs) write_epoch(json, s, r);
  json.end_array();
}

void write_results(JsonWriter& json, const RunSummary& s) {
  json.key("results").begin_object();
  optional_text(json, "best_checkpoint", s.best_checkpoint);
  optional_integer(json, "best_epoch", s.best_epoch);
  optional_number(json, "best_mAP50", s.best_map50);
  optional_number(json, "best_mAP50_95", s.best_metric);
  write_epoch_lists(json, s);
  optional_number(json, "final_loss", final_loss(s));
  optional_text(json, "last_checkpoint", s.last_checkpoint);
  json.member("save_dir", s.save_dir);
  json.key("val_metrics").begin_array();
  for (const auto& r : s.epochs) write_numbers(json, metrics_of(r));
  json.end_array();
  json.end_object();
}

std::optional<long> whole_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  return end == text.c_str() + text.size() ? std::optional<long>(value) : std::nullopt;
}

}  // namespace

std::string run_summary_json(const RunSummary& s) {
  std::ostringstream text;
  JsonWriter json(text, 2);
  json.begin_object();
  optional_integer(json, "best_epoch", s.best_epoch);
  optional_number(json, "best_metric", s.best_metric);
  json.key("checkpoints").begin_object();
  optional_text(json, "best", s.best_checkpoint);
  optional_text(json, "last", s.last_checkpoint);
  json.end_object();
  json.member("completed_epochs", std::max(s.epochs.size(), s.logged_epochs.size()));
  optional_number(json, "final_loss", final_loss(s));
  json.member("invocation_completed_epochs", s.epochs.size());
  json.key("logged_epochs").begin_array();
  for (const int epoch : s.logged_epochs) json.value(epoch);
  json.end_array();
  json.member("model_family", s.model_family);
  json.member("model_size", s.model_size);
  write_results(json, s);
  json.member("results_scope", "current_invocation");
  json.member("save_dir", s.save_dir);
  json.member("task", s.task);
  json.member("total_epochs", s.total_epochs);
  json.member_exact("total_seconds", s.total_seconds);
  json.end_object();
  return text.str();
}

void write_run_summary(const std::filesystem::path& file, const RunSummary& summary) {
  const std::string text = run_summary_json(summary);
  checkpoint::write_file_atomically(file, [&](checkpoint::AtomicFileWriter& out) { out.write(text.data(), text.size()); });
}

LoggedResults LoggedResults::read(const std::filesystem::path& results_csv) {
  LoggedResults logged;
  std::ifstream in(results_csv);
  std::string line;
  if (!std::getline(in, line)) return logged;
  logged.columns_ = util::split_csv_line(line);
  const auto epoch_column = std::find(logged.columns_.begin(), logged.columns_.end(), "epoch") - logged.columns_.begin();
  while (std::getline(in, line)) {
    auto cells = util::split_csv_line(line);
    if (static_cast<std::size_t>(epoch_column) >= cells.size()) continue;
    const auto epoch = whole_number(cells[static_cast<std::size_t>(epoch_column)]);
    if (!epoch) continue;
    logged.epochs_.push_back(static_cast<int>(*epoch));
    logged.rows_.push_back(std::move(cells));
  }
  return logged;
}

std::optional<double> LoggedResults::value(int epoch, const std::string& column) const {
  const auto at = std::find(columns_.begin(), columns_.end(), column);
  if (at == columns_.end()) return std::nullopt;
  const auto index = static_cast<std::size_t>(at - columns_.begin());
  for (std::size_t r = rows_.size(); r-- > 0;) {
    if (epochs_[r] != epoch || index >= rows_[r].size() || rows_[r][index].empty()) continue;
    char* end = nullptr;
    const double value = std::strtod(rows_[r][index].c_str(), &end);
    if (end == rows_[r][index].c_str() + rows_[r][index].size()) return value;
  }
  return std::nullopt;
}

}  // namespace libreyolo::core::trainer

#include "libreyolo/core/trainer/results_log.hpp"

#include <iomanip>
#include <sstream>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/json_writer.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::trainer {
namespace {

void append_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::app);
  out << text;
  if (!out) {
    throw Error("cannot append to " + file.string(), "the write failed",
                "check free disk space and permissions of the run folder");
  }
}

std::string number(double value) {
  std::ostringstream out;
  out << std::setprecision(6) << value;
  return out.str();
}

double loss_value(const EpochRecord& r, const std::string& name) {
  double value = 0;
  for (const auto& [n, v] : r.train_losses) {
    if (n == name) value = v;
  }
  return value;
}

// One metrics.jsonl line: the CSV row's columns under the same names. A diverged (NaN) loss is
// written as null, which keeps the line valid JSON.
std::string json_line(const EpochRecord& r, const std::vector<std::string>& loss_names) {
  std::ostringstream line;
  util::JsonWriter json(line);
  json.begin_object(true)
      .member("epoch", r.epoch)
      .member_general("time", r.seconds)
      .member_general("images_per_second", r.images_per_second)
      .member_general("lr", r.learning_rate);
  for (const auto& name : loss_names) json.member_general("train/" + name + "_loss", loss_value(r, name));
  if (r.validated) {
    json.member_general("metrics/mAP50", r.map50).member_general("metrics/mAP50-95", r.map50_95);
  } else {
    json.key("metrics/mAP50").null().key("metrics/mAP50-95").null();
  }
  json.end_object();
  return line.str();
}

}  // namespace

ResultsLog::ResultsLog(const fs::path& folder, const std::vector<std::string>& loss_names, bool append)
    : csv_path_(folder / "results.csv"), jsonl_path_(folder / "metrics.jsonl"), loss_names_(loss_names) {
  if (append && fs::exists(csv_path_)) return;
  std::string header = "epoch,time,images_per_second,lr";
  for (const auto& name : loss_names_) header += ",train/" + name + "_loss";
  header += ",metrics/mAP50,metrics/mAP50-95";
  std::ofstream(csv_path_, std::ios::trunc) << header << "\n";
  std::ofstream(jsonl_path_, std::ios::trunc);
}

void ResultsLog::write(const EpochRecord& r) {
  std::string csv = std::to_string(r.epoch) + "," + number(r.seconds) + "," + number(r.images_per_second) +
                    "," + number(r.learning_rate);
  for (const auto& name : loss_names_) csv += "," + number(loss_value(r, name));
  // Epochs without validation leave the metric cells empty (and null in JSON), not zero.
  csv += r.validated ? "," + number(r.map50) + "," + number(r.map50_95) : ",,";
  append_text(csv_path_, csv + "\n");
  append_text(jsonl_path_, json_line(r, loss_names_));
}

}  // namespace libreyolo::core::trainer

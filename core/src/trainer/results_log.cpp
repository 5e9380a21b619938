#include "libreyolo/core/trainer/results_log.hpp"

#include <iomanip>
#include <sstream>

#include "libreyolo/core/error.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::trainer {
namespace {

void append_line(const fs::path& file, const std::string& line) {
  std::ofstream out(file, std::ios::app);
  out << line << "\n";
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
  std::string json = "{\"epoch\": " + std::to_string(r.epoch) + ", \"time\": " + number(r.seconds) +
                     ", \"images_per_second\": " + number(r.images_per_second) + ", \"lr\": " + number(r.learning_rate);
  for (const auto& name : loss_names_) {
    double value = 0;
    for (const auto& [n, v] : r.train_losses) {
      if (n == name) value = v;
    }
    csv += "," + number(value);
    json += ", \"train/" + name + "_loss\": " + number(value);
  }
  // Epochs without validation leave the metric cells empty (and null in JSON), not zero.
  csv += r.validated ? "," + number(r.map50) + "," + number(r.map50_95) : ",,";
  json += r.validated ? ", \"metrics/mAP50\": " + number(r.map50) + ", \"metrics/mAP50-95\": " + number(r.map50_95)
                      : ", \"metrics/mAP50\": null, \"metrics/mAP50-95\": null";
  append_line(csv_path_, csv);
  append_line(jsonl_path_, json + "}");
}

}  // namespace libreyolo::core::trainer

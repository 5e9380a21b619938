#pragma once
// Per-epoch records of a run: results.csv (one row per epoch, for spreadsheets and plots) and
// metrics.jsonl (one JSON object per epoch, for scripts). A resumed run appends.

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace libreyolo::core::trainer {

struct EpochRecord {
  int epoch = 0;        // 1-based, as printed
  double seconds = 0;   // wall time of the epoch (training + validation)
  double images_per_second = 0;
  double learning_rate = 0;
  std::vector<std::pair<std::string, double>> train_losses;  // mean over the epoch, by component
  bool validated = false;
  double map50 = 0;
  double map50_95 = 0;
};

class ResultsLog {
 public:
  // `loss_names` fix the csv columns. With `append`, existing files are continued.
  ResultsLog(const std::filesystem::path& folder, const std::vector<std::string>& loss_names, bool append);
  void write(const EpochRecord& record);

 private:
  std::filesystem::path csv_path_;
  std::filesystem::path jsonl_path_;
  std::vector<std::string> loss_names_;
};

}  // namespace libreyolo::core::trainer

#pragma once
// summary.json: what a training run did, written into the run folder when training returns (all
// epochs, or stopped early by patience), as LibreYOLO's TrainingArtifactsCallback.on_train_end
// writes it (training/artifacts.py): its keys, sorted, two-space indent, a final newline, no NaN
// (null instead). A run that ends by Ctrl-C or an error writes none, as in LibreYOLO.
//
// Keys: total_epochs, completed_epochs (the most of this process's epochs and the epochs in
// results.csv), invocation_completed_epochs, logged_epochs (results.csv's epoch column),
// model_family, model_size, task, save_dir, final_loss (the last epoch's train/loss),
// best_metric (mAP50-95) and best_epoch (1-based; null when never validated), total_seconds,
// checkpoints {best, last} (paths, null when absent), results_scope ("current_invocation") and
// results: this process's epochs, as LibreYOLO's _build_train_results lists them.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "libreyolo/core/trainer/results_log.hpp"

namespace libreyolo::core::trainer {

struct RunSummary {
  int total_epochs = 0;                // the epochs option
  std::vector<EpochRecord> epochs;     // this process's epochs, as results.csv got them
  std::vector<int> logged_epochs;      // every epoch results.csv holds (a resumed run's earlier ones too)
  std::string model_family, model_size, task = "detect";
  std::string save_dir;                // the run folder
  std::optional<int> best_epoch;       // 1-based; none when never validated
  std::optional<double> best_metric;   // its mAP50-95
  std::optional<double> best_map50;    // its mAP50, where results.csv or this process has it
  double total_seconds = 0;            // this process, setup included
  std::optional<std::string> best_checkpoint, last_checkpoint;  // files that exist at the end
};

// The document as LibreYOLO's json.dump(indent=2, sort_keys=True) lays it out.
std::string run_summary_json(const RunSummary& summary);

// Writes it atomically (checkpoint/atomic_file.hpp): a reader never sees half a file, and a
// failed write leaves the previous file. Throws core::Error naming the file.
void write_run_summary(const std::filesystem::path& file, const RunSummary& summary);

// results.csv read back: the epochs it has rows for, in file order (rows whose epoch is not an
// integer are skipped, as LibreYOLO's _read_logged_epochs skips them), and one cell by epoch.
class LoggedResults {
 public:
  static LoggedResults read(const std::filesystem::path& results_csv);  // no file: nothing logged
  const std::vector<int>& epochs() const { return epochs_; }
  // The number in `column` of the last row of `epoch`; none when absent or empty.
  std::optional<double> value(int epoch, const std::string& column) const;

 private:
  std::vector<std::string> columns_;
  std::vector<int> epochs_;
  std::vector<std::vector<std::string>> rows_;  // rows_[i] belongs to epochs_[i]
};

}  // namespace libreyolo::core::trainer

#pragma once
// Per-epoch records of a run: results.csv (one row per epoch, for spreadsheets and plots) and
// metrics.jsonl (one JSON object per epoch, for scripts), under LibreYOLO's column names
// (its training/artifacts.py): epoch, time, train/loss, validated, is_best, current_metric...,
// train/<part>_loss, metrics/... as its DetectionValidator names them, lr/group<i>. One column
// is ours: images_per_second, third. A resumed run appends.

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/eval/coco_summary.hpp"

namespace libreyolo::core::trainer {

struct EpochRecord {
  int epoch = 0;        // 1-based, as printed
  double seconds = 0;   // wall time of the epoch (training + validation)
  double images_per_second = 0;
  std::vector<double> learning_rates;  // per optimizer group, in group order: lr/group0, ...
  std::vector<std::pair<std::string, double>> train_losses;  // mean over the epoch, by component
  bool validated = false;
  eval::CocoStats stats{};  // when validated; -1 where COCO had nothing to average
  // The run's best validation so far (this epoch's when is_best); best_epoch 0: none yet.
  bool is_best = false;
  int best_epoch = 0;
  double best_metric = 0;
};

// The metric best.pt and patience follow, under LibreYOLO's name (its best_metric_key).
inline constexpr const char* kBestMetricName = "metrics/mAP50-95";

// train/loss: every family's total loss is the sum of its components (sdk::LossOutput).
double total_loss(const EpochRecord& record);

// LibreYOLO's DetectionValidator metrics of an evaluation, under its names and in its order
// (metrics/precision, metrics/recall, metrics/mAP50-95, ...); COCO's -1 (nothing to average)
// reads as 0, as LibreYOLO reports it.
std::vector<std::pair<std::string, double>> validation_metrics(const eval::CocoStats& stats);

// The header of results.csv for these loss components and this many optimizer groups.
std::vector<std::string> results_columns(const std::vector<std::string>& loss_names, std::size_t lr_groups);

class ResultsLog {
 public:
  // `loss_names` and `lr_groups` fix the csv columns. With `append`, existing files are continued.
  ResultsLog(const std::filesystem::path& folder, const std::vector<std::string>& loss_names, std::size_t lr_groups,
             bool append);
  void write(const EpochRecord& record);

 private:
  std::filesystem::path csv_path_;
  std::filesystem::path jsonl_path_;
  std::vector<std::string> loss_names_;
  std::size_t lr_groups_;
};

// A number as plain decimals, shortest text that reads back as the same double ("0.00001",
// never "1e-05"); empty for NaN and infinity, as LibreYOLO leaves them.
std::string plain_decimal(double value);

}  // namespace libreyolo::core::trainer

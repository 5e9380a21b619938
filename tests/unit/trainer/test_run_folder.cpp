#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

#include "../temp_dir.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/results_log.hpp"
#include "libreyolo/core/trainer/run_folder.hpp"

using namespace libreyolo::core;
using namespace libreyolo::core::trainer;

namespace {
std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("run folders: exp, exp2, exp3 unless exist_ok; weights/ inside") {
  const libreyolo::test::TempDir dir;
  CHECK(create_run_folder(dir.path(), "exp", false).root == dir / "exp");
  CHECK(std::filesystem::is_directory(dir / "exp" / "weights"));
  CHECK(create_run_folder(dir.path(), "exp", false).root == dir / "exp2");
  CHECK(create_run_folder(dir.path(), "exp", false).root == dir / "exp3");
  CHECK(create_run_folder(dir.path(), "exp", true).root == dir / "exp");
  CHECK_THROWS_AS(create_run_folder(dir.path(), "a/b", false), Error);
}

// A record the way the hooks fill it: two lr groups, and validation stats when `validated`.
EpochRecord record(int epoch, double seconds, double lr, std::vector<std::pair<std::string, double>> losses,
                   bool validated, double map50 = 0, double map50_95 = 0) {
  EpochRecord r;
  r.epoch = epoch;
  r.seconds = seconds;
  r.images_per_second = 100;
  r.learning_rates = {lr, lr / 10};
  r.train_losses = std::move(losses);
  r.validated = validated;
  r.stats.values.fill(-1);
  if (validated) {
    r.stats.values.fill(0.125);
    r.stats.values[0] = map50_95;
    r.stats.values[1] = map50;
    r.stats.values[8] = 0.75;  // AR100: LibreYOLO's recall
  }
  return r;
}

// Splits a CSV line (no quoting in results.csv).
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The cell of `column` in `row` of a results.csv text.
std::string cell_of(const std::string& csv, std::size_t row, const std::string& column) {
  const auto rows = lines(csv);
  const auto header = cells(rows.at(0));
  const auto it = std::find(header.begin(), header.end(), column);
  REQUIRE_MESSAGE(it != header.end(), "no column " << column);
  return cells(rows.at(row)).at(static_cast<std::size_t>(it - header.begin()));
}

TEST_CASE("results.csv: LibreYOLO's column names, in its order, images_per_second ours") {
  const auto columns = results_columns({"box", "cls"}, 2);
  const std::vector<std::string> expected = {
      "epoch", "time", "images_per_second", "train/loss", "validated", "is_best", "current_metric",
      "current_metric_name", "best_metric", "best_metric_name", "best_epoch", "train/box_loss", "train/cls_loss",
      "metrics/precision", "metrics/recall", "metrics/mAP50-95", "metrics/mAP50", "metrics/mAP75",
      "metrics/precision(B)", "metrics/recall(B)", "metrics/mAP50(B)", "metrics/mAP50-95(B)", "metrics/mAP_small",
      "metrics/mAP_medium", "metrics/mAP_large", "metrics/AR1", "metrics/AR10", "metrics/AR100", "metrics/AR_small",
      "metrics/AR_medium", "metrics/AR_large", "lr/group0", "lr/group1"};
  CHECK(columns == expected);
}

TEST_CASE("results.csv and metrics.jsonl: a row per epoch, empty metrics when not validated, resume appends") {
  const libreyolo::test::TempDir dir;
  {
    ResultsLog log(dir.path(), {"box", "cls"}, 2, false);
    log.write(record(1, 2.5, 0.01, {{"box", 1.5}, {"cls", 0.75}}, false));
    auto second = record(2, 2.0, 0.009, {{"box", 1.25}, {"cls", 0.5}}, true, 0.5, 0.25);
    second.is_best = true;
    second.best_epoch = 2;
    second.best_metric = 0.25;
    log.write(second);
  }
  ResultsLog resumed(dir.path(), {"box", "cls"}, 2, true);
  auto third = record(3, 2.0, 0.00001, {{"box", 1.0}, {"cls", 0.5}}, true, 0.625, 0.375);
  third.best_epoch = 2;  // not a new best: the best stays epoch 2's
  third.best_metric = 0.25;
  resumed.write(third);
  const auto csv = slurp(dir / "results.csv");
  REQUIRE(lines(csv).size() == 4);  // the header once, three epochs
  CHECK(cell_of(csv, 1, "epoch") == "1");
  CHECK(cell_of(csv, 1, "time") == "2.5");
  CHECK(cell_of(csv, 1, "train/loss") == "2.25");  // the sum of the components
  CHECK(cell_of(csv, 1, "validated") == "0");
  CHECK(cell_of(csv, 1, "metrics/mAP50") == "");
  CHECK(cell_of(csv, 1, "metrics/mAP50-95(B)") == "");
  CHECK(cell_of(csv, 1, "current_metric") == "");
  CHECK(cell_of(csv, 1, "best_epoch") == "");
  CHECK(cell_of(csv, 2, "validated") == "1");
  CHECK(cell_of(csv, 2, "is_best") == "1");
  CHECK(cell_of(csv, 2, "metrics/mAP50") == "0.5");
  CHECK(cell_of(csv, 2, "metrics/mAP50(B)") == "0.5");
  CHECK(cell_of(csv, 2, "metrics/mAP50-95") == "0.25");
  CHECK(cell_of(csv, 2, "metrics/precision(B)") == "0.25");  // LibreYOLO's: COCO's mean precision
  CHECK(cell_of(csv, 2, "metrics/recall(B)") == "0.75");     // and mean recall at 100 detections
  CHECK(cell_of(csv, 2, "current_metric_name") == "metrics/mAP50-95");
  CHECK(cell_of(csv, 2, "lr/group0") == "0.009");
  CHECK(cell_of(csv, 2, "lr/group1") == "0.0009");
  CHECK(cell_of(csv, 3, "is_best") == "0");
  CHECK(cell_of(csv, 3, "best_epoch") == "2");
  CHECK(cell_of(csv, 3, "best_metric") == "0.25");
  CHECK(cell_of(csv, 3, "lr/group0") == "0.00001");  // plain decimals, never 1e-05
  for (std::size_t row = 1; row < 4; ++row) {
    // No exponent in any number; the only letters in a row are the metric's name (twice).
    auto line = lines(csv)[row];
    for (auto at = line.find("metrics/mAP50-95"); at != std::string::npos; at = line.find("metrics/mAP50-95")) {
      line.erase(at, std::string("metrics/mAP50-95").size());
    }
    CHECK(line.find_first_of("eE") == std::string::npos);
  }
  const auto jsonl = slurp(dir / "metrics.jsonl");
  CHECK(jsonl.find("\"metrics/mAP50\": null") != std::string::npos);
  CHECK(jsonl.find("{\"epoch\": 3,") != std::string::npos);
}

TEST_CASE("results.csv: plain decimals") {
  CHECK(plain_decimal(1e-5) == "0.00001");
  CHECK(plain_decimal(0.1) == "0.1");
  CHECK(plain_decimal(1234567.5) == "1234567.5");
  CHECK(plain_decimal(2.0) == "2");
  CHECK(plain_decimal(std::numeric_limits<double>::quiet_NaN()).empty());
}

TEST_CASE("metrics.jsonl: one valid JSON line per epoch, a diverged loss as null") {
  const libreyolo::test::TempDir dir;
  {
    ResultsLog log(dir.path(), {"box"}, 1, false);
    log.write(record(1, 2.5, 0.01, {{"box", std::numeric_limits<double>::quiet_NaN()}}, false));
  }
  const auto line = slurp(dir / "metrics.jsonl");
  CHECK(line.rfind("{\"epoch\": 1, \"time\": 2.5, \"images_per_second\": 100, \"train/loss\": null, ", 0) == 0);
  CHECK(line.find("\"train/box_loss\": null") != std::string::npos);
  CHECK(line.find("\"metrics/mAP50\": null") != std::string::npos);
  CHECK(line.find("\"lr/group0\": 0.01}") != std::string::npos);
  CHECK(std::count(line.begin(), line.end(), '\n') == 1);
  // A diverged loss is an empty cell in the CSV.
  CHECK(cell_of(slurp(dir / "results.csv"), 1, "train/box_loss") == "");
}

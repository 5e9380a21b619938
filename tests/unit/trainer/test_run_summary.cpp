// summary.json as LibreYOLO's TrainingArtifactsCallback writes it: its keys, sorted at every
// level, the values the trainer's records give, null where there is nothing (never a -1), and
// results.csv read back for logged_epochs.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "libreyolo/core/trainer/run_summary.hpp"
#include "../temp_dir.hpp"

using namespace libreyolo::core::trainer;

namespace {

EpochRecord epoch(int number, bool validated, double ap, double ap50) {
  EpochRecord r;
  r.epoch = number;
  r.seconds = 2.5;
  r.learning_rates = {0.01, 0.02};
  r.train_losses = {{"box", 1.5}, {"cls", 0.25}};
  r.validated = validated;
  r.stats.values.fill(-1);  // COCO's "nothing to average" where not set below
  r.stats.values[0] = ap;
  r.stats.values[1] = ap50;
  return r;
}

RunSummary two_epochs() {
  RunSummary s;
  s.total_epochs = 2;
  s.epochs = {epoch(1, false, 0, 0), epoch(2, true, 0.125, 0.5)};
  s.epochs[1].is_best = true;
  s.epochs[1].best_epoch = 2;
  s.epochs[1].best_metric = 0.125;
  s.logged_epochs = {1, 2};
  s.model_family = "example";
  s.model_size = "n";
  s.save_dir = "runs/train/exp";
  s.best_epoch = 2;
  s.best_metric = 0.125;
  s.best_map50 = 0.5;
  s.total_seconds = 7.25;
  s.last_checkpoint = "runs/train/exp/weights/last.pt";
  return s;
}

// The keys of the object that starts at `text`'s first line, one level down, in file order.
std::vector<std::string> top_level_keys(const std::string& text) {
  std::vector<std::string> keys;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("  \"", 0) == 0) keys.push_back(line.substr(3, line.find('"', 3) - 3));
  }
  return keys;
}

}  // namespace

TEST_CASE("summary.json: LibreYOLO's keys, sorted, with the run's values") {
  const auto text = run_summary_json(two_epochs());
  const std::vector<std::string> keys = {"best_epoch",  "best_metric",  "checkpoints",   "completed_epochs",
                                         "final_loss",  "invocation_completed_epochs",  "logged_epochs",
                                         "model_family", "model_size",  "results",       "results_scope",
                                         "save_dir",    "task",         "total_epochs",  "total_seconds"};
  CHECK(top_level_keys(text) == keys);
  CHECK(text.back() == '\n');
  const auto doc = YAML::Load(text);
  CHECK(doc["total_epochs"].as<int>() == 2);
  CHECK(doc["completed_epochs"].as<int>() == 2);
  CHECK(doc["invocation_completed_epochs"].as<int>() == 2);
  CHECK(doc["logged_epochs"].size() == 2);
  CHECK(doc["best_epoch"].as<int>() == 2);
  CHECK(doc["best_metric"].as<double>() == 0.125);
  CHECK(doc["final_loss"].as<double>() == 1.75);  // train/loss: the sum of the components
  CHECK(doc["total_seconds"].as<double>() == 7.25);
  CHECK(doc["task"].as<std::string>() == "detect");
  CHECK(doc["checkpoints"]["best"].IsNull());  // no best.pt
  CHECK(doc["checkpoints"]["last"].as<std::string>() == "runs/train/exp/weights/last.pt");
  CHECK(doc["results_scope"].as<std::string>() == "current_invocation");
}

TEST_CASE("summary.json: results lists this process's epochs as LibreYOLO's _build_train_results") {
  const auto doc = YAML::Load(run_summary_json(two_epochs()));
  const auto results = doc["results"];
  CHECK(results["best_mAP50"].as<double>() == 0.5);
  CHECK(results["best_mAP50_95"].as<double>() == 0.125);
  CHECK(results["best_epoch"].as<int>() == 2);
  CHECK(results["epoch_losses"].size() == 2);
  CHECK(results["epoch_lrs"][1]["group1"].as<double>() == 0.02);
  CHECK(results["epoch_loss_items"][0]["cls"].as<double>() == 0.25);
  CHECK(results["val_metrics"][0].size() == 0);  // not validated: no metrics
  CHECK(results["val_metrics"][1]["metrics/mAP50-95"].as<double>() == 0.125);
  CHECK(results["val_metrics"][1]["metrics/mAP_small"].as<double>() == 0.0);  // COCO's -1 reads as 0
  const auto first = results["epoch_metrics"][0];
  CHECK(first["epoch"].as<int>() == 1);
  CHECK_FALSE(first["validated"].as<bool>());
  CHECK(first["current_metric"].IsNull());
  CHECK(first["best_epoch"].IsNull());
  CHECK(first["best_metric_name"].IsNull());
  const auto second = results["epoch_metrics"][1];
  CHECK(second["is_best"].as<bool>());
  CHECK(second["current_metric"].as<double>() == 0.125);
  CHECK(second["best_metric_name"].as<std::string>() == "metrics/mAP50-95");
  CHECK(second["train_loss"].as<double>() == 1.75);
  CHECK(second["model_family"].as<std::string>() == "example");
}

TEST_CASE("summary.json: a run never validated has null bests, not -1 or 0") {
  auto s = two_epochs();
  s.epochs = {epoch(1, false, 0, 0)};
  s.best_epoch.reset();
  s.best_metric.reset();
  s.best_map50.reset();
  const auto text = run_summary_json(s);
  CHECK(text.find("-1") == std::string::npos);
  const auto doc = YAML::Load(text);
  CHECK(doc["best_epoch"].IsNull());
  CHECK(doc["best_metric"].IsNull());
  CHECK(doc["results"]["best_mAP50_95"].IsNull());
  // logged_epochs come from results.csv: a resumed run's earlier epochs count as completed.
  CHECK(doc["completed_epochs"].as<int>() == 2);
  CHECK(doc["invocation_completed_epochs"].as<int>() == 1);
}

TEST_CASE("summary.json: a diverged loss is null, so the file still parses") {
  auto s = two_epochs();
  s.epochs[1].train_losses[0].second = std::numeric_limits<double>::quiet_NaN();
  const auto doc = YAML::Load(run_summary_json(s));
  CHECK(doc["final_loss"].IsNull());
  CHECK(doc["results"]["epoch_losses"][1].IsNull());
}

TEST_CASE("summary.json is written whole, with no temporary file left") {
  libreyolo::test::TempDir dir;
  const auto file = dir / "summary.json";
  std::ofstream(file) << "an older summary";
  write_run_summary(file, two_epochs());
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == run_summary_json(two_epochs()));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++entries;
  CHECK(entries == 1);
}

TEST_CASE("results.csv read back: epochs in file order, rows without an integer epoch skipped, cells by epoch") {
  libreyolo::test::TempDir dir;
  const auto csv = dir / "results.csv";
  std::ofstream(csv) << "epoch,time,metrics/mAP50\n1,2.0,\n2,2.1,0.25\nx,1,1\n2,2.2,0.375\n";
  const auto logged = LoggedResults::read(csv);
  CHECK(logged.epochs() == std::vector<int>{1, 2, 2});
  CHECK_FALSE(logged.value(1, "metrics/mAP50"));  // empty: not validated
  CHECK(*logged.value(2, "metrics/mAP50") == 0.375);  // the last row of the epoch
  CHECK_FALSE(logged.value(2, "no such column"));
  CHECK(LoggedResults::read(dir / "missing.csv").epochs().empty());
}

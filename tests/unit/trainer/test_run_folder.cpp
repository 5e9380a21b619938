#include <doctest/doctest.h>

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

TEST_CASE("results.csv and metrics.jsonl: a row per epoch, empty metrics when not validated, resume appends") {
  const libreyolo::test::TempDir dir;
  {
    ResultsLog log(dir.path(), {"box", "cls"}, false);
    log.write({1, 2.5, 100, 0.01, {{"box", 1.5}, {"cls", 0.75}}, false, 0, 0});
    log.write({2, 2.0, 120, 0.009, {{"box", 1.25}, {"cls", 0.5}}, true, 0.5, 0.25});
  }
  ResultsLog resumed(dir.path(), {"box", "cls"}, true);
  resumed.write({3, 2.0, 120, 0.008, {{"box", 1.0}, {"cls", 0.5}}, true, 0.625, 0.375});
  CHECK(slurp(dir / "results.csv") ==
        "epoch,time,images_per_second,lr,train/box_loss,train/cls_loss,metrics/mAP50,metrics/mAP50-95\n"
        "1,2.5,100,0.01,1.5,0.75,,\n"
        "2,2,120,0.009,1.25,0.5,0.5,0.25\n"
        "3,2,120,0.008,1,0.5,0.625,0.375\n");
  const auto jsonl = slurp(dir / "metrics.jsonl");
  CHECK(jsonl.find("\"metrics/mAP50\": null") != std::string::npos);
  CHECK(jsonl.find("{\"epoch\": 3,") != std::string::npos);
}

TEST_CASE("metrics.jsonl: one valid JSON line per epoch, a diverged loss as null") {
  const libreyolo::test::TempDir dir;
  {
    ResultsLog log(dir.path(), {"box"}, false);
    log.write({1, 2.5, 100, 0.01, {{"box", std::numeric_limits<double>::quiet_NaN()}}, false, 0, 0});
    log.write({2, 2.0, 120, 0.009, {{"box", 1.25}}, true, 0.5, 0.25});
  }
  CHECK(slurp(dir / "metrics.jsonl") ==
        "{\"epoch\": 1, \"time\": 2.5, \"images_per_second\": 100, \"lr\": 0.01, \"train/box_loss\": null, "
        "\"metrics/mAP50\": null, \"metrics/mAP50-95\": null}\n"
        "{\"epoch\": 2, \"time\": 2, \"images_per_second\": 120, \"lr\": 0.009, \"train/box_loss\": 1.25, "
        "\"metrics/mAP50\": 0.5, \"metrics/mAP50-95\": 0.25}\n");
}

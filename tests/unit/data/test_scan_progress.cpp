// The dataset scan's progress line (issue #20, item 8): a long scan says how far it is, at most
// once per interval; a short one says nothing.
#include <doctest/doctest.h>

#include <chrono>

#include "data_test_support.hpp"
#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/dataset_scan.hpp"
#include "libreyolo/core/data/dataset/scan_progress.hpp"
#include "log_capture.hpp"

using namespace libreyolo::core::data;
using namespace libreyolo::test;

TEST_CASE("ScanProgress reports at most once per interval, and not before the first one") {
  LogCapture log;
  ScanProgress quiet("train", 1000, std::chrono::hours(1));
  for (int i = 0; i < 1000; ++i) quiet.image_done();
  ScanProgress every("val", 3, std::chrono::milliseconds(0));
  for (int i = 0; i < 3; ++i) every.image_done();
  const std::string said = log.text();
  CHECK(count_of(said, "scanning dataset split 'train'") == 0);
  CHECK(count_of(said, "scanning dataset split 'val'") == 3);
  CHECK(count_of(said, "3 of 3 images (100%") == 1);
}

TEST_CASE("scan_split shows its progress while it runs") {
  TempDir dir;
  const auto jpeg = encode_jpeg(16, 16, 3, solid(16, 16, 3, 90));
  for (int i = 0; i < 4; ++i) {
    write_bytes(dir / ("images/train/" + std::to_string(i) + ".jpg"), jpeg);
    write_text(dir / ("labels/train/" + std::to_string(i) + ".txt"), "0 0.5 0.5 0.2 0.2\n");
  }
  write_text(dir / "data.yaml", "train: images/train\nnames: [a]\n");
  const DatasetConfig config = load_dataset_config(dir / "data.yaml");
  ScanOptions options;
  options.use_cache = false;
  options.progress_interval = std::chrono::milliseconds(0);
  LogCapture log;
  scan_split(config.train, 1, options);
  CHECK(count_of(log.text(), "scanning dataset split 'train': ") == 4);
}

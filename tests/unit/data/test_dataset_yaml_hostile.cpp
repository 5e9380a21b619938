// data.yaml written wrong (issue #20, item 11): a missing or empty train key, a key written
// twice, a `path:` that leaves the dataset, and a dataset without a single box each get their
// own message, and derived caches stay inside the dataset.
#include <doctest/doctest.h>

#include <string>

#include "data_test_support.hpp"
#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/dataset_samples.hpp"
#include "libreyolo/core/data/dataset/dataset_scan.hpp"
#include "libreyolo/core/error.hpp"
#include "log_capture.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::data;
using namespace libreyolo::test;
namespace fs = std::filesystem;

namespace {

void add_image(const TempDir& dir, const std::string& image, const std::string& label_text) {
  write_bytes(dir / image, encode_jpeg(16, 16, 3, solid(16, 16, 3, 90)));
  if (label_text.empty()) return;
  fs::path label = dir / image;
  std::string text = label.string();
  text.replace(text.rfind("/images/"), 8, "/labels/");
  write_text(fs::path(text).replace_extension(".txt"), label_text);
}

Error error_of_yaml(const TempDir& dir, const std::string& yaml) {
  write_text(dir / "data.yaml", yaml);
  try {
    load_dataset_config(dir / "data.yaml");
  } catch (const Error& e) {
    return e;
  }
  FAIL("data.yaml was accepted:\n" << yaml);
  return Error("", "", "");
}

}  // namespace

TEST_CASE("A key written twice in data.yaml is refused, naming the key and both lines") {
  TempDir dir;
  add_image(dir, "images/train/a.jpg", "0 0.5 0.5 0.2 0.2\n");
  add_image(dir, "images/val/a.jpg", "0 0.5 0.5 0.2 0.2\n");
  const Error top = error_of_yaml(dir, "train: images/train\nval: images/val\nnames: [a]\ntrain: images/val\n");
  CHECK(top.why().find("the key 'train' appears twice (lines 1 and 4)") != std::string::npos);
  CHECK(std::string(top.what()).find("data.yaml:4") != std::string::npos);
  const Error nested = error_of_yaml(dir, "train: images/train\nnames:\n  0: a\n  1: b\n  0: c\n");
  CHECK(nested.why().find("the key '0' appears twice (lines 3 and 5)") != std::string::npos);
}

TEST_CASE("A missing and an empty train: entry each say which it is") {
  TempDir dir;
  add_image(dir, "images/val/a.jpg", "0 0.5 0.5 0.2 0.2\n");
  write_text(dir / "data.yaml", "val: images/val\nnames: [a]\n");
  const DatasetConfig missing = load_dataset_config(dir / "data.yaml");
  try {
    missing.split("train");
    FAIL("a split without a train key was returned");
  } catch (const Error& e) {
    CHECK(e.why().find("no 'train:' key") != std::string::npos);
    CHECK(e.what_to_do().find("train: images/train") != std::string::npos);
  }
  write_text(dir / "data.yaml", "train:\nval: images/val\nnames: [a]\n");
  const DatasetConfig empty = load_dataset_config(dir / "data.yaml");
  CHECK_THROWS_WITH_AS(empty.split("train"), doctest::Contains("its 'train:' entry is empty"), Error);
}

TEST_CASE("A scan cache never lands outside the dataset root: it goes to the cache folder") {
  TempDir dir;
  // `path: root` with `train: .`: the labels folder is the root itself, whose usual cache
  // place (root.libreyolo.cache) is beside the root, outside it.
  add_image(dir, "root/images/a.jpg", "0 0.5 0.5 0.2 0.2\n");
  write_text(dir / "root/data.yaml", "path: .\ntrain: .\nnames: [a]\n");
  const DatasetConfig config = load_dataset_config(dir / "root/data.yaml");
  const fs::path cache_dir = config.root / ".libreyolo-cache";
  CHECK(scan_cache_path(config.train) == dir / "root.libreyolo.cache");  // the old place
  const fs::path placed = scan_cache_path(config.train, config.root, cache_dir);
  CHECK(placed.parent_path() == cache_dir);
  CHECK(placed.filename().string().rfind("train-", 0) == 0);

  ScanOptions options;
  options.dataset_root = config.root;
  options.cache_dir = cache_dir;
  const ScanResult result = scan_split(config.train, 1, options);
  CHECK(result.cache_written);
  CHECK(result.cache_path == placed);
  CHECK(fs::is_regular_file(placed));
  CHECK_FALSE(fs::exists(dir / "root.libreyolo.cache"));
  // A split inside the root keeps the usual place beside its labels folder.
  write_text(dir / "root/data.yaml", "path: .\ntrain: images\nnames: [a]\n");
  const DatasetConfig usual = load_dataset_config(dir / "root/data.yaml");
  CHECK(scan_cache_path(usual.train, usual.root, cache_dir) == dir / "root/labels.libreyolo.cache");
}

TEST_CASE("A train split without a single box is an error; another split without boxes a warning") {
  TempDir dir;
  add_image(dir, "images/train/a.jpg", "");
  add_image(dir, "images/train/b.jpg", "\n");
  write_text(dir / "data.yaml", "train: images/train\nval: images/train\nnames: [a]\n");
  DatasetConfig config = load_dataset_config(dir / "data.yaml");
  SplitLoadOptions options;
  options.imgsz = 32;
  options.cache_dir = config.root / ".libreyolo-cache";
  options.dataset_root = config.root;
  try {
    load_split_samples(config.train, 1, options);
    FAIL("a train split without boxes was loaded");
  } catch (const Error& e) {
    CHECK(e.what_happened() == "Dataset split 'train' has no boxes to train on");
    CHECK(e.why().find("its 2 usable images have no box at all") != std::string::npos);
    CHECK(e.why().find((dir / "labels/train/a.txt").string()) != std::string::npos);
  }
  LogCapture log;
  CHECK(load_split_samples(config.val, 1, options)->labels.size() == 2);
  CHECK(count_of(log.text(), "dataset split 'val' has no boxes") == 1);
}

// Scanning a split: what is kept, what is reported, and the scan cache.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "data_test_support.hpp"
#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/dataset_scan.hpp"
#include "libreyolo/core/error.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::data;
using namespace libreyolo::test;
namespace fs = std::filesystem;

namespace {

const ScannedImage* find_image(const ScanResult& result, const std::string& filename) {
  for (const ScannedImage& image : result.images)
    if (image.path.filename() == filename) return &image;
  return nullptr;
}

// A small split exercising every per-image outcome; returns its loaded config (nc = 2).
DatasetConfig make_dataset(const TempDir& dir) {
  const std::vector<std::uint8_t> jpeg = encode_jpeg(40, 20, 3, solid(40, 20, 3, 128));
  const std::vector<std::uint8_t> png =
      encode_png({20, 10, PNG_COLOR_TYPE_RGB, 8}, solid(20, 10, 3, 128));
  write_bytes(dir / "images/train/good.jpg", jpeg);
  write_text(dir / "labels/train/good.txt", "0 0.5 0.5 0.2 0.2\n1 0.25 0.25 0.1 0.1\n");
  write_bytes(dir / "images/train/bg_nolabel.png", png);
  write_bytes(dir / "images/train/bg_empty.jpg", jpeg);
  write_text(dir / "labels/train/bg_empty.txt", "\n");
  write_bytes(dir / "images/train/corrupt.jpg", {0xFF, 0xD8, 0xFF, 0x00, 0x13, 0x37});
  write_text(dir / "labels/train/corrupt.txt", "0 0.5 0.5 0.2 0.2\n");
  write_bytes(dir / "images/train/truncated.png",
              std::vector<std::uint8_t>(png.begin(), png.begin() + 40));
  write_bytes(dir / "images/train/badrows.jpg", jpeg);
  write_text(dir / "labels/train/badrows.txt",
             "0 0.5 0.5 0.2 0.2\n5 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.2 0.2\n1 2.0 0.5 0.1 0.1\n1 1.0005 "
             "0.5 0.1 0.1\n");
  write_bytes(dir / "images/train/allbad.jpg", jpeg);
  write_text(dir / "labels/train/allbad.txt", "0 100 200 30 40\n");
  write_bytes(dir / "images/train/binarylabel.jpg", jpeg);
  write_bytes(dir / "labels/train/binarylabel.txt", {0, 1, 2, 3});
  write_bytes(dir / "images/train/rotated.jpg",
              encode_jpeg(40, 20, 3, solid(40, 20, 3, 128), exif_app1(6)));
  write_text(dir / "labels/train/rotated.txt", "1 0.5 0.5 0.5 0.5\n");
  write_text(dir / "labels/train/orphan.txt", "0 0.5 0.5 0.2 0.2\n");
  write_text(dir / "data.yaml", "train: images/train\nnames: [a, b]\n");
  return load_dataset_config(dir / "data.yaml");
}

}  // namespace

TEST_CASE("A scan keeps usable images, drops bad rows and reports every problem") {
  TempDir dir;
  const DatasetConfig config = make_dataset(dir);
  ScanOptions options;
  options.display_root = config.root;
  options.threads = 3;
  const ScanResult result = scan_split(config.train, config.nc(), options);
  const ScanReport& report = result.report;

  CHECK(report.images_listed == 9);
  CHECK(result.images.size() == 5);
  CHECK(report.images_usable == 5);
  CHECK(report.boxes == 2 + 2 + 1);
  CHECK(find_image(result, "good.jpg")->boxes.size() == 2);
  CHECK(find_image(result, "good.jpg")->width == 40);
  CHECK(find_image(result, "bg_nolabel.png")->boxes.empty());
  CHECK(find_image(result, "bg_nolabel.png")->height == 10);
  CHECK(find_image(result, "bg_empty.jpg")->boxes.empty());
  REQUIRE(find_image(result, "badrows.jpg") != nullptr);
  CHECK(find_image(result, "badrows.jpg")->boxes.size() == 2);  // the good row and the clipped one
  CHECK(find_image(result, "badrows.jpg")->boxes[1].cx == 1.0f);
  CHECK(find_image(result, "rotated.jpg")->width == 20);  // EXIF 6: upright size
  CHECK(find_image(result, "rotated.jpg")->height == 40);
  CHECK(find_image(result, "corrupt.jpg") == nullptr);
  CHECK(find_image(result, "allbad.jpg") == nullptr);
  CHECK(find_image(result, "binarylabel.jpg") == nullptr);
  // Usable images keep the split's (sorted) order.
  CHECK(result.images.front().path.filename() == "badrows.jpg");

  CHECK(report.count(ProblemKind::kBackgroundImage) == 2);
  CHECK(report.count(ProblemKind::kImageUnreadable) == 2);
  CHECK(report.count(ProblemKind::kLabelUnreadable) == 1);
  CHECK(report.count(ProblemKind::kLabelWithoutImage) == 1);
  CHECK(report.count(ProblemKind::kClassOutOfRange) == 1);
  CHECK(report.count(ProblemKind::kDuplicateRow) == 1);
  CHECK(report.count(ProblemKind::kCoordinateOutOfRange) == 2);
  CHECK(report.count(ProblemKind::kCoordinateClipped) == 1);
  CHECK(report.count(ProblemKind::kImageDroppedForBadRows) == 1);
  CHECK(report.total_problems() == 2 + 1 + 1 + 1 + 1 + 2 + 1);

  const std::string text = format_scan_report(report);
  MESSAGE(text);
  CHECK(text.find("labels/train/badrows.txt:2") != std::string::npos);
  CHECK(text.find("labels/train/orphan.txt") != std::string::npos);
  CHECK(text.find("images/train/corrupt.jpg (") != std::string::npos);
  CHECK(text.find("problems in total: 9") != std::string::npos);
}

TEST_CASE("drop_images_with_bad_rows skips the whole image like Ultralytics") {
  TempDir dir;
  const DatasetConfig config = make_dataset(dir);
  ScanOptions options;
  options.drop_images_with_bad_rows = true;
  options.use_cache = false;
  const ScanResult result = scan_split(config.train, config.nc(), options);
  CHECK(find_image(result, "badrows.jpg") == nullptr);
  CHECK(result.report.count(ProblemKind::kImageDroppedForBadRows) == 2);
  CHECK(result.images.size() == 4);
  CHECK(result.cache_path.empty());
  CHECK_FALSE(fs::exists(dir / "labels/train.libreyolo.cache"));
}

TEST_CASE("Report examples are capped per kind") {
  ScanReport report;
  report.examples_per_kind = 2;
  for (int i = 0; i < 5; ++i) report.add(ProblemKind::kImageUnreadable, "f" + std::to_string(i));
  CHECK(report.count(ProblemKind::kImageUnreadable) == 5);
  CHECK(report.tally(ProblemKind::kImageUnreadable).examples.size() == 2);
  CHECK(format_scan_report(report).find(
            "not JPEG/PNG: 5\n      f0\n      f1\n      ... and 3 more") != std::string::npos);

  CHECK(format_scan_report(ScanReport{}).find("no problems found") != std::string::npos);
}

TEST_CASE("A split without a usable image is an Error carrying the report") {
  TempDir dir;
  write_bytes(dir / "images/train/bad.jpg", {1, 2, 3});
  write_text(dir / "data.yaml", "train: images/train\nval: images/val\nnames: [a]\n");
  fs::create_directories(dir / "images/val");
  const DatasetConfig config = load_dataset_config(dir / "data.yaml");
  try {
    scan_split(config.train, 1);
    FAIL("expected an Error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("No usable image in dataset split 'train'") !=
          std::string::npos);
    CHECK(e.why().find("bad.jpg") != std::string::npos);
  }
  CHECK_THROWS_AS(scan_split(config.val, 1), Error);  // empty folder
}

TEST_CASE("The scan cache is reused for unchanged files and refreshed per changed file") {
  TempDir dir;
  const DatasetConfig config = make_dataset(dir);
  const fs::path cache = dir / "labels/train.libreyolo.cache";

  const ScanResult first = scan_split(config.train, 2);
  CHECK(first.cache_path == cache);
  CHECK(first.cache_written);
  CHECK(first.report.cache_hits == 0);
  REQUIRE(fs::exists(cache));

  const ScanResult second = scan_split(config.train, 2);
  CHECK(second.report.cache_hits == 9);
  CHECK_FALSE(second.cache_written);
  REQUIRE(second.images.size() == first.images.size());
  for (std::size_t i = 0; i < first.images.size(); ++i) {
    CHECK(second.images[i].path == first.images[i].path);
    CHECK(second.images[i].width == first.images[i].width);
    CHECK(second.images[i].boxes == first.images[i].boxes);
  }
  CHECK(format_scan_report(second.report).find("9 images read from the scan cache") !=
        std::string::npos);
  for (std::size_t k = 0; k < kProblemKindCount; ++k) {
    CHECK(second.report.tallies[k].count == first.report.tallies[k].count);
    CHECK(second.report.tallies[k].examples == first.report.tallies[k].examples);
  }

  // Edit one label (and move its mtime so the change is visible even on coarse clocks).
  const fs::path label = dir / "labels/train/good.txt";
  const auto before = fs::last_write_time(label);
  write_text(label, "1 0.5 0.5 0.3 0.3\n");
  fs::last_write_time(label, before + std::chrono::seconds(2));
  const ScanResult third = scan_split(config.train, 2);
  CHECK(third.report.cache_hits == 8);
  CHECK(third.cache_written);
  CHECK(find_image(third, "good.jpg")->boxes.size() == 1);
  CHECK(find_image(third, "good.jpg")->boxes[0].class_id == 1);

  // Touching an image, adding a label to a background image, or a different nc all rescan.
  fs::last_write_time(dir / "images/train/rotated.jpg", before + std::chrono::seconds(5));
  write_text(dir / "labels/train/bg_nolabel.txt", "0 0.5 0.5 0.5 0.5\n");
  const ScanResult fourth = scan_split(config.train, 2);
  CHECK(fourth.report.cache_hits == 7);
  CHECK(find_image(fourth, "bg_nolabel.png")->boxes.size() == 1);
  CHECK(scan_split(config.train, 3).report.cache_hits == 0);
}

// Issue #20, item 6: an edit that keeps size and mtime used to reuse the stale scan.
TEST_CASE("A label edit that keeps its size and mtime is not taken from the scan cache") {
  TempDir dir;
  const DatasetConfig config = make_dataset(dir);
  REQUIRE(scan_split(config.train, 2).cache_written);
  const fs::path label = dir / "labels/train/good.txt";
  const auto before = fs::last_write_time(label);
  const auto size = fs::file_size(label);
  // Same byte count, other classes; then the old mtime put back (as `touch -d` or a copy would).
  // The pause outlasts a coarse file-system clock tick, so the edit's ctime differs.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write_text(label, "1 0.5 0.5 0.2 0.2\n0 0.25 0.25 0.1 0.1\n");
  REQUIRE(fs::file_size(label) == size);
  fs::last_write_time(label, before);
  const ScanResult again = scan_split(config.train, 2);
  CHECK(again.report.cache_hits == 8);
  REQUIRE(find_image(again, "good.jpg")->boxes.size() == 2);
  CHECK(find_image(again, "good.jpg")->boxes[0].class_id == 1);
}

TEST_CASE("A corrupt or unwritable cache never stops a scan") {
  TempDir dir;
  const DatasetConfig config = make_dataset(dir);
  const fs::path cache = dir / "labels/train.libreyolo.cache";
  REQUIRE(scan_split(config.train, 2).cache_written);

  std::vector<std::uint8_t> bytes = read_bytes(cache);
  bytes.resize(bytes.size() / 2);
  write_bytes(cache, bytes);
  const ScanResult truncated = scan_split(config.train, 2);
  CHECK(truncated.report.cache_hits == 0);
  CHECK(truncated.cache_written);

  write_text(cache, "not a cache at all");
  CHECK(scan_split(config.train, 2).report.cache_hits == 0);

  // Root ignores permissions, so block the cache path with a folder instead.
  fs::remove(cache);
  fs::create_directories(cache / "blocker");
  const ScanResult blocked = scan_split(config.train, 2);
  CHECK_FALSE(blocked.cache_written);
  CHECK(blocked.images.size() == 5);
  CHECK(fs::is_directory(cache));
  for (const auto& entry : fs::directory_iterator(dir / "labels"))
    CHECK(entry.path().filename().string().find(".tmp") == std::string::npos);
}

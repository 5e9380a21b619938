#pragma once
// Scanning a split before training: every image's upright size and validated boxes, with a
// report of everything that was dropped and why. Usable images only go to the loader, so a
// corrupt file or a broken label never surfaces mid-run.
//
// Policy, per image:
//  - image missing/corrupt/truncated/not JPEG or PNG: skipped (kImageUnreadable);
//  - no label file, or one without any row: background image, kept (a notice);
//  - label file that cannot be read (permissions, binary data, FIFO, > kMaxLabelRows): skipped;
//  - invalid rows: dropped and counted, the image keeps its valid rows. If every row was
//    invalid, or ScanOptions::drop_images_with_bad_rows is set (Ultralytics' policy), the image
//    is skipped instead: training it as background would teach that its objects are background;
//  - label files in the split's labels folders without an image: reported.
// A split with no usable image is an Error.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <vector>

#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/label_file.hpp"
#include "libreyolo/core/data/dataset/scan_report.hpp"

namespace libreyolo::core::data {

struct ScannedImage {
  std::filesystem::path path;
  int width = 0;  // upright size (JPEG EXIF orientation applied), as decode_image returns it
  int height = 0;
  std::vector<LabelBox> boxes;  // empty for a background image
};

struct ScanOptions {
  bool use_cache = true;
  bool drop_images_with_bad_rows = false;
  int threads = 0;  // 0: one per hardware thread
  std::size_t examples_per_kind = 5;
  // Report examples are printed relative to this folder when they lie under it (usually
  // DatasetConfig::root); empty: as listed.
  std::filesystem::path display_root;
  // Derived files stay inside the dataset: a scan cache whose usual place (next to the labels
  // folder) lies outside `dataset_root` goes into `cache_dir` instead. Empty: no such rule.
  std::filesystem::path dataset_root;
  std::filesystem::path cache_dir;
  // A progress line at most this often while the scan runs (none for a scan that is quicker).
  std::chrono::milliseconds progress_interval{2000};
};

struct ScanResult {
  std::vector<ScannedImage> images;  // usable images, in the split's order
  ScanReport report;
  std::filesystem::path cache_path;  // where the cache lives (empty when caching is off)
  bool cache_written = false;        // false when nothing changed or the folder is read-only
};

// Scans `split` for a dataset of `nc` classes. Throws libreyolo::core::Error when the split
// has no usable image (the message carries the formatted report).
ScanResult scan_split(const DatasetSplit& split, int nc, const ScanOptions& options = {});

// <labels folder of the split's first image folder>.libreyolo.cache, e.g.
// labels/train2017.libreyolo.cache (or, for list-only splits, next to the first image's labels
// folder). Not Ultralytics' "<labels>.cache" name, so the two tools never overwrite each other.
// When `dataset_root` is set and that place is not inside it (a split folder that is the root
// itself, or outside it: `path: /usr/share` with `train: .` once wrote /usr/share.libreyolo.cache),
// <cache_dir>/<split>-<hash of the labels folder>.libreyolo.cache instead.
std::filesystem::path scan_cache_path(const DatasetSplit& split,
                                      const std::filesystem::path& dataset_root = {},
                                      const std::filesystem::path& cache_dir = {});

}  // namespace libreyolo::core::data

#include "libreyolo/core/data/dataset/dataset_scan.hpp"

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <exception>
#include <functional>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "libreyolo/core/data/cache/fnv1a.hpp"
#include "libreyolo/core/data/dataset/image_paths.hpp"
#include "libreyolo/core/data/dataset/image_scan.hpp"
#include "libreyolo/core/data/dataset/scan_cache.hpp"
#include "libreyolo/core/data/dataset/scan_progress.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace fs = std::filesystem;
namespace {

// Header reads are I/O bound; a few threads hide disk and network-filesystem latency.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body) {
  unsigned workers =
      threads > 0 ? static_cast<unsigned>(threads) : std::thread::hardware_concurrency();
  workers = std::max(
      1u, std::min<unsigned>(workers, static_cast<unsigned>(std::min<std::size_t>(count, 64))));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) body(i);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
}

fs::path without_trailing_separator(const fs::path& path) {
  return path.has_filename() || !path.has_parent_path() ? path : path.parent_path();
}

std::string display(const fs::path& path, const fs::path& root) {
  if (root.empty()) return path.string();
  const fs::path relative = path.lexically_relative(root);
  if (relative.empty() || *relative.begin() == "..") return path.string();
  return relative.string();
}

// True when `path` lies strictly below `folder` (lexically; both absolute and normal).
bool is_inside(const fs::path& path, const fs::path& folder) {
  const fs::path relative = path.lexically_normal().lexically_relative(folder.lexically_normal());
  return !relative.empty() && *relative.begin() != ".." && relative != ".";
}

// Label files under the split's labels folders that no listed image claims.
void report_orphan_labels(const DatasetSplit& split, const std::unordered_set<std::string>& claimed,
                          const fs::path& root, ScanReport* report) {
  for (const fs::path& folder : split.folders) {
    const fs::path labels = label_folder_for_image_folder(without_trailing_separator(folder));
    std::error_code ec;
    if (!fs::is_directory(labels, ec)) continue;
    std::vector<fs::path> orphans;
    fs::recursive_directory_iterator it(labels, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_regular_file(type_ec) && it->path().extension() == ".txt" &&
          claimed.count(it->path().lexically_normal().string()) == 0) {
        orphans.push_back(it->path());
      }
    }
    std::sort(orphans.begin(), orphans.end());
    for (const fs::path& orphan : orphans) {
      report->add(ProblemKind::kLabelWithoutImage, display(orphan, root));
    }
  }
}

// Turns per-image records into the usable images and the report, in the split's order.
void collect(const DatasetSplit& split, const std::vector<ImageScanRecord>& records,
             const ScanOptions& options, ScanResult* result) {
  ScanReport& report = result->report;
  const fs::path& root = options.display_root;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const ImageScanRecord& record = records[i];
    const fs::path& image = split.images[i];
    if (record.status == ImageScanRecord::Status::kImageUnreadable) {
      report.add(ProblemKind::kImageUnreadable, display(image, root) + " (" + record.reason + ")");
      continue;
    }
    const fs::path label = label_path_for_image(image);
    if (record.status == ImageScanRecord::Status::kLabelUnreadable) {
      report.add(ProblemKind::kLabelUnreadable, display(label, root) + " (" + record.reason + ")");
      continue;
    }
    bool dropped_rows = false;
    for (const RowFinding& finding : record.findings) {
      report.add(finding.kind, display(label, root) + ":" + std::to_string(finding.line));
      dropped_rows |= is_problem(finding.kind) && finding.kind != ProblemKind::kDuplicateRow;
    }
    if (dropped_rows && (options.drop_images_with_bad_rows || record.boxes.empty())) {
      report.add(ProblemKind::kImageDroppedForBadRows, display(image, root));
      continue;
    }
    if (record.boxes.empty()) report.add(ProblemKind::kBackgroundImage, display(image, root));
    report.boxes += record.boxes.size();
    result->images.push_back({image, record.width, record.height, record.boxes});
  }
  report.images_usable = result->images.size();
}

}  // namespace

fs::path scan_cache_path(const DatasetSplit& split, const fs::path& dataset_root,
                         const fs::path& cache_dir) {
  fs::path labels;
  if (!split.folders.empty()) {
    labels = label_folder_for_image_folder(without_trailing_separator(split.folders.front()));
  } else if (!split.images.empty()) {
    labels = label_path_for_image(split.images.front()).parent_path();
  } else {
    return {};
  }
  labels = without_trailing_separator(labels);
  const fs::path beside_labels(labels.string() + ".libreyolo.cache");
  if (dataset_root.empty() || is_inside(beside_labels, dataset_root)) return beside_labels;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(fnv1a64(labels.string().data(), labels.string().size())));
  return cache_dir / (split.name + "-" + hash + ".libreyolo.cache");
}

ScanResult scan_split(const DatasetSplit& split, int nc, const ScanOptions& options) {
  ScanResult result;
  result.report.split = split.name;
  result.report.examples_per_kind = options.examples_per_kind;
  result.report.images_listed = split.images.size();

  std::vector<ImageScanRecord> cached;
  if (options.use_cache) {
    result.cache_path = scan_cache_path(split, options.dataset_root, options.cache_dir);
    if (!result.cache_path.empty()) cached = read_scan_cache(result.cache_path, nc);
  }
  std::unordered_map<std::string, const ImageScanRecord*> by_image;
  for (const ImageScanRecord& record : cached) by_image.emplace(record.image, &record);

  std::vector<ImageScanRecord> records(split.images.size());
  std::vector<char> hit(split.images.size(), 0);
  ScanProgress progress(split.name, split.images.size(), options.progress_interval);
  parallel_for(split.images.size(), options.threads, [&](std::size_t i) {
    const fs::path& image = split.images[i];
    try {
      const fs::path label = label_path_for_image(image);
      const FileStamp image_stamp = stamp_file(image);
      const FileStamp label_stamp = stamp_file(label);
      const auto found = by_image.find(image.string());
      if (found != by_image.end() && found->second->image_stamp == image_stamp &&
          found->second->label_stamp == label_stamp) {
        records[i] = *found->second;
        hit[i] = 1;
      } else {
        records[i] = scan_image(image, label, image_stamp, label_stamp, nc);
      }
    } catch (const std::exception& e) {  // allocation failure: count the image, keep scanning
      records[i] = ImageScanRecord{};
      records[i].image = image.string();
      records[i].status = ImageScanRecord::Status::kImageUnreadable;
      records[i].reason = e.what();
    }
    progress.image_done();
  });
  result.report.cache_hits = static_cast<std::size_t>(std::count(hit.begin(), hit.end(), 1));

  const bool cache_current =
      result.report.cache_hits == records.size() && cached.size() == records.size();
  if (options.use_cache && !result.cache_path.empty() && !cache_current && !records.empty()) {
    result.cache_written = write_scan_cache(result.cache_path, nc, records);
  }

  collect(split, records, options, &result);
  std::unordered_set<std::string> claimed;
  for (const fs::path& image : split.images) {
    claimed.insert(label_path_for_image(image).lexically_normal().string());
  }
  report_orphan_labels(split, claimed, options.display_root, &result.report);

  if (result.images.empty()) {
    throw Error("No usable image in dataset split '" + split.name + "'",
                split.images.empty() ? "the split lists no JPEG or PNG image"
                                     : format_scan_report(result.report),
                "Check the split's path in data.yaml and the files the report names");
  }
  return result;
}

}  // namespace libreyolo::core::data

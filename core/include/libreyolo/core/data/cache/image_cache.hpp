#pragma once
// The decode-once image cache behind `cache=ram|disk|false`: the loader asks for one
// ImageSource and gets images resized to long side imgsz, decoded once per run (ram), once
// per dataset change (disk), or on every read (false).
//
//  - ram:  every image decoded in parallel into ONE allocation of exactly the pixel bytes (plus
//          an offset table), if that fits in 60% of the memory the machine or container has
//          available; otherwise one log line and the disk cache (or no cache) instead.
//  - disk: one file per split in cache_dir (<name>.libreyolo-images), memory-mapped read-only;
//          reused while every image's path, size and mtime and imgsz match, otherwise
//          rebuilt (unchanged images are copied from the old file, not decoded again). Written
//          to a temporary file and renamed, under a lock file so concurrent ranks build it
//          once. An unwritable folder falls back to no cache.
//  - none: decode + resize into the caller's scratch image on every get().
// An image that cannot be decoded never stops the build: it is logged once, and get() throws
// a libreyolo::core::Error naming it.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libreyolo/core/data/cache/image_source.hpp"

namespace libreyolo::core::data {

struct ImageSourceOptions {
  // Upright image sizes from the dataset scan (ScannedImage::width/height), one per image;
  // empty: every header is read again.
  std::vector<ImageSize> original_sizes;
  // The most a RAM cache may take; unset: kRamCacheShareOfAvailable of available memory,
  // divided by local_ranks.
  std::optional<std::uint64_t> ram_budget_bytes;
  // Processes on this machine that each build their own RAM cache at the same time (DDP
  // ranks): they share the available memory.
  int local_ranks = 1;
  // Stem of the disk cache file (e.g. the split name); empty: a hash of the image list.
  std::string disk_cache_name;
};

// `threads` <= 0: one per hardware thread. `cache_dir` may be empty (then disk is unavailable).
// Throws libreyolo::core::Error for imgsz <= 0; bad images never throw here.
std::unique_ptr<ImageSource> make_image_source(CacheMode requested,
                                               std::vector<std::filesystem::path> images,
                                               int imgsz, const std::filesystem::path& cache_dir,
                                               int threads, const ImageSourceOptions& options = {});

// Where cache=disk keeps the cache of `images`:
// <cache_dir>/<disk_cache_name or "images-" + 16 hex digits of a hash of the paths>.libreyolo-images
std::filesystem::path disk_cache_path(const std::vector<std::filesystem::path>& images,
                                      const std::filesystem::path& cache_dir,
                                      const std::string& disk_cache_name = {});

}  // namespace libreyolo::core::data

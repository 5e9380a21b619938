#pragma once
// Building a disk image cache file: decode every image (or copy it from the previous cache
// when it did not change) straight into a temporary file, then rename it into place.

#include <cstdint>
#include <filesystem>
#include <vector>

#include "libreyolo/core/data/cache/disk_cache_format.hpp"
#include "libreyolo/core/data/cache/image_plan.hpp"
#include "libreyolo/core/data/dataset/image_scan.hpp"

namespace libreyolo::core::data {

// The cache file being replaced, if it read back: its images whose path, stamp and size are
// unchanged are copied from `pixels` instead of decoded again.
struct PreviousDiskCache {
  const DiskCacheContents* contents = nullptr;
  const std::uint8_t* pixels = nullptr;  // its pixel block
};

// Writes `cache_file` for `plan` (stamps: one per image, taken before decoding) with `threads`
// threads: pixels go to a temporary file as they are decoded, then the index, then the
// preamble, fsync, rename. Decode failures are recorded in `plan`. Returns false, after
// logging why and removing the temporary file, when the folder is not writable or full.
bool write_disk_cache(ImagePlan& plan, const std::vector<FileStamp>& stamps,
                      const std::filesystem::path& cache_file, int threads,
                      const PreviousDiskCache& previous);

// Removes temporary files that killed builds of `cache_file` left behind. Call only while
// holding the cache's lock, so that no other process is writing one.
void remove_stale_temporaries(const std::filesystem::path& cache_file);

}  // namespace libreyolo::core::data

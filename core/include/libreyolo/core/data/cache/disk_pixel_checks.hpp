#pragma once
// The pixel checksums of a mapped disk cache, checked lazily. Hashing the whole pixel block at
// every start would read a cache that exists because the dataset does not fit in RAM, so each
// image is checked the first time this process reads it (the loader's workers, in parallel)
// and remembered. An image whose bytes changed on disk is named once, served from its source
// image, and written back into the cache file so the next read (and the next run) finds it
// whole again.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>

#include "libreyolo/core/data/cache/image_plan.hpp"

namespace libreyolo::core::data {

class DiskPixelChecks {
 public:
  // `inode`: the mapped file's, so that a newer cache renamed over it is never written.
  DiskPixelChecks(std::filesystem::path cache_file, std::uint64_t inode, std::size_t images);

  // Whether the mapped `pixels` of image `index` hash to `expected`. Thread-safe; hashes each
  // image once while it stays good. A mismatch warns (once per image) and returns false.
  bool trusted(std::size_t index, const PlannedImage& image, const std::uint8_t* pixels,
               std::uint64_t expected) const;

  // Writes `decoded` (the image decoded again from its source) into the image's slot of the
  // cache file, if it hashes to `expected` (the decode the cache was built from) and the file
  // at the path is still the mapped one. The next trusted() checks the mapping again.
  void repair(std::size_t index, const PlannedImage& image, const std::uint8_t* decoded,
              std::uint64_t expected) const;

 private:
  enum State : std::uint8_t { kUnchecked = 0, kGood = 1, kBad = 2 };

  std::filesystem::path file_;
  std::uint64_t inode_;
  std::unique_ptr<std::atomic<std::uint8_t>[]> states_;
  std::unique_ptr<std::atomic<bool>[]> warned_;
};

}  // namespace libreyolo::core::data

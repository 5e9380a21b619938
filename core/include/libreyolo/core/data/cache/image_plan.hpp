#pragma once
// What every image source knows before decoding a single pixel: each image's upright size
// (from its header, or from the dataset scan), the size it is cached at, and where its pixels
// go in a cache arena or file. Sizes come from headers, so a cache can be allocated exactly
// once, with no growth and no copies.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::data {

// Long side -> imgsz, the short side scaled by the same ratio and rounded (at least 1).
// Small images are enlarged as well, as LibreYOLO's load_resized_img does, so every cached
// image has long side imgsz and augmentation sees one scale. The same rule as
// resize_long_side(), but computed from the original size so a JPEG decoded at a reduced DCT
// scale still lands on exactly the planned size.
ImageSize resized_size(ImageSize original, int imgsz);

struct PlannedImage {
  std::filesystem::path path;
  ImageSize original;         // upright size; 0 x 0 when the header could not be read
  ImageSize resized;          // resized_size(original, imgsz); 0 x 0 when unusable
  std::uint64_t offset = 0;   // where its pixels start in the cache arena / file pixel block
  std::string failure;        // why it cannot be loaded; empty while it is fine

  std::uint64_t bytes() const {
    return static_cast<std::uint64_t>(resized.width) * static_cast<std::uint64_t>(resized.height) *
           Image::kChannels;
  }
  bool usable() const { return failure.empty(); }
};

struct ImagePlan {
  int imgsz = 0;
  std::vector<PlannedImage> images;
  std::uint64_t pixel_bytes = 0;  // sum of bytes() over every image: the cache's exact size
};

// Plans `paths` at `imgsz`. `known_sizes` (upright sizes from the dataset scan, one per path)
// spares reading every header again; when empty, headers are read with `threads` threads
// (0: one per hardware thread). An unreadable header marks that image as failed; it never
// throws for bad images. Throws libreyolo::core::Error for imgsz <= 0 or a `known_sizes` of
// the wrong length.
ImagePlan plan_images(std::vector<std::filesystem::path> paths, int imgsz,
                      const std::vector<ImageSize>& known_sizes, int threads);

// Recomputes every offset (packed, in list order) and pixel_bytes, after failures changed.
void assign_offsets(ImagePlan& plan);

}  // namespace libreyolo::core::data

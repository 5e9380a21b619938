#pragma once
// The one decode + resize path every cache mode goes through, so cache=ram, disk and false
// return byte-identical pixels for the same image.

#include <cstdint>
#include <filesystem>

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::data {

// Decodes `path` (EXIF orientation applied; JPEGs at a reduced DCT scale when that still
// leaves the long side >= imgsz) and resizes it to resized_size(original, imgsz): area
// averaging when shrinking, bilinear when enlarging.
// Throws libreyolo::core::Error naming the file when it cannot be decoded or when its decoded
// size no longer matches `original` (the file changed since it was scanned).
Image load_resized_image(const std::filesystem::path& path, ImageSize original, int imgsz);

// About how much memory one load_resized_image call holds at its peak (decoded image, the
// resizer's float rows, the result), assuming a JPEG decoded at its reduced DCT scale. The RAM
// cache limits its threads with it so that their scratch stays small next to the cache.
std::uint64_t load_scratch_bytes(ImageSize original, int imgsz);

}  // namespace libreyolo::core::data

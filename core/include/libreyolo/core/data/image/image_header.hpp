#pragma once
// Image size without decoding pixels, for scanning a dataset of 100k+ images quickly.

#include <filesystem>

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::data {

// Upright size of a JPEG or PNG (JPEG EXIF orientations 5-8 swap width and height, matching
// what decode_image returns). Reads the header and the last few KB only; the tail check
// catches truncated files (no JPEG end-of-image marker / no PNG IEND chunk) the way trusted
// tools do, so a half-downloaded image is rejected at scan time rather than mid-training.
// Throws libreyolo::core::Error naming the file for anything unreadable or unsupported.
ImageSize read_image_size(const std::filesystem::path& path);

}  // namespace libreyolo::core::data

#pragma once
// One entry point that turns a JPEG or PNG file into upright 8-bit RGB, whatever its
// extension, colour model or bit depth. The training loader decodes each image once per run.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/data/image/image_header.hpp"

namespace libreyolo::core::data {

// Reads and decodes `path`. Throws libreyolo::core::Error naming the file for a missing,
// unreadable, corrupt, truncated or unsupported (not JPEG/PNG) file; never aborts.
// `min_long_side` > 0 is a hint for callers that will shrink the image anyway (the decode-once
// cache at imgsz): JPEGs may come back smaller, but never with a long side below it (nor
// below their own size). PNGs always decode at full size.
Image decode_image(const std::filesystem::path& path, int min_long_side = 0);

// Same, for bytes already in memory; `name` only labels error messages.
Image decode_image_bytes(const std::uint8_t* data, std::size_t size, const std::string& name,
                         int min_long_side = 0);

}  // namespace libreyolo::core::data

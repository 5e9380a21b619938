#pragma once
// Which decoder a file needs, told by its first bytes rather than its extension: a PNG saved
// as .jpg is common in scraped datasets and decodes fine once recognised.

#include <cstddef>
#include <cstdint>
#include <string>

namespace libreyolo::core::data {

enum class ImageFormat { kJpeg, kPng, kUnknown };

// Needs at least 8 bytes to recognise PNG, 3 for JPEG; fewer bytes give kUnknown.
ImageFormat detect_image_format(const std::uint8_t* bytes, std::size_t size);

// For error messages about unsupported files: "a GIF file", "a WebP file", or the first bytes
// in hex when the signature is not one we know.
std::string describe_unsupported_signature(const std::uint8_t* bytes, std::size_t size);

}  // namespace libreyolo::core::data

#include "libreyolo/core/data/image/image_format.hpp"

#include <cstdio>
#include <cstring>

namespace libreyolo::core::data {
namespace {

bool starts_with(const std::uint8_t* bytes, std::size_t size, const char* magic,
                 std::size_t magic_size) {
  return size >= magic_size && std::memcmp(bytes, magic, magic_size) == 0;
}

}  // namespace

ImageFormat detect_image_format(const std::uint8_t* bytes, std::size_t size) {
  if (starts_with(bytes, size, "\xFF\xD8\xFF", 3)) return ImageFormat::kJpeg;
  if (starts_with(bytes, size, "\x89PNG\r\n\x1A\n", 8)) return ImageFormat::kPng;
  return ImageFormat::kUnknown;
}

std::string describe_unsupported_signature(const std::uint8_t* bytes, std::size_t size) {
  if (size == 0) return "the file is empty";
  if (starts_with(bytes, size, "GIF8", 4)) return "it is a GIF file, not JPEG or PNG";
  if (starts_with(bytes, size, "BM", 2)) return "it looks like a BMP file, not JPEG or PNG";
  if (size >= 12 && starts_with(bytes, size, "RIFF", 4) && std::memcmp(bytes + 8, "WEBP", 4) == 0)
    return "it is a WebP file, not JPEG or PNG";
  if (starts_with(bytes, size, "II*\0", 4) || starts_with(bytes, size, "MM\0*", 4))
    return "it is a TIFF file, not JPEG or PNG";
  if (size >= 12 && std::memcmp(bytes + 4, "ftyp", 4) == 0)
    return "it is a HEIF/AVIF/MP4-family file, not JPEG or PNG";
  std::string hex;
  for (std::size_t i = 0; i < size && i < 8; ++i) {
    char byte[4];
    std::snprintf(byte, sizeof byte, "%02X ", bytes[i]);
    hex += byte;
  }
  if (!hex.empty()) hex.pop_back();
  return "it is not a JPEG or PNG file (it starts with bytes " + hex + ")";
}

}  // namespace libreyolo::core::data

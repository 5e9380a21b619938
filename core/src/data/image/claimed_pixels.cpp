#include "libreyolo/core/data/image/claimed_pixels.hpp"

#include <cstdio>

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::data {
namespace {

// Below this a decode costs at most 12 MB: not worth refusing a file over.
constexpr std::uint64_t kAlwaysBelievedPixels = std::uint64_t{1} << 22;

std::uint64_t pixels_per_byte_limit(PixelCoding coding) {
  switch (coding) {
    case PixelCoding::jpeg_huffman: return 4096;
    case PixelCoding::png: return 16384;
    case PixelCoding::jpeg_arithmetic: return 0;  // adaptive coding: flat images cost almost nothing
  }
  return 0;
}

std::string size_text(std::uint64_t width, std::uint64_t height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

}  // namespace

std::string implausible_pixels(std::uint64_t width, std::uint64_t height, std::uint64_t file_bytes, PixelCoding coding) {
  // Both sides come from 16- or 32-bit header fields, so the product cannot overflow.
  const std::uint64_t pixels = width * height;
  if (pixels > kMaxImagePixels) {
    return "it is " + size_text(width, height) + " pixels, more than this host accepts (2^28 pixels)";
  }
  const std::uint64_t limit = pixels_per_byte_limit(coding);
  if (pixels <= kAlwaysBelievedPixels || limit == 0 || pixels / limit <= file_bytes) return {};
  const char* format = coding == PixelCoding::png ? "PNG" : "JPEG";
  return "its header claims " + size_text(width, height) + " pixels but the file holds only " + std::to_string(file_bytes) + " bytes, far less than any " + format +
         " of that size (more than " + std::to_string(limit) +
         " pixels per byte): the header is damaged or forged, and decoding it would allocate " +
         std::to_string(pixels * 3 / 1000000) + " MB for pixels the file does not hold";
}


bool refuse_implausible_pixels(std::uint64_t width, std::uint64_t height, std::uint64_t file_bytes, PixelCoding coding,
                               char* message, std::size_t message_size) {
  const std::string why = implausible_pixels(width, height, file_bytes, coding);
  if (why.empty()) return false;
  std::snprintf(message, message_size, "%s", why.c_str());
  return true;
}

}  // namespace libreyolo::core::data

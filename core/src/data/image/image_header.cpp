#include "libreyolo/core/data/image/image_header.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "libreyolo/core/data/image/claimed_pixels.hpp"
#include "libreyolo/core/data/image/exif_orientation.hpp"
#include "libreyolo/core/data/image/image_format.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/regular_file.hpp"

namespace libreyolo::core::data {
namespace {

// How far from the end we look for the end marker: tolerates padding that some writers
// append after it without reading the whole file.
constexpr std::streamoff kTailWindow = 4096;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& why) {
  throw Error("Cannot read image " + path.string(), why,
              "Re-download or re-export the image, or remove it from the dataset");
}

std::uint32_t be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

bool is_start_of_frame(int marker) {
  // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC), which share the range.
  return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

// True if `pattern` occurs in the last bytes of the file after `not_before`.
bool tail_contains(std::ifstream& in, std::streamoff file_size, std::streamoff not_before,
                   const char* pattern, std::size_t pattern_size) {
  const std::streamoff start = std::max(not_before, file_size - kTailWindow);
  if (start >= file_size) return false;
  std::vector<char> tail(static_cast<std::size_t>(file_size - start));
  in.clear();
  in.seekg(start);
  if (!in.read(tail.data(), static_cast<std::streamsize>(tail.size()))) return false;
  return std::search(tail.begin(), tail.end(), pattern, pattern + pattern_size) != tail.end();
}

// Also refuses a size the file is far too small to hold (claimed_pixels.hpp): the decoder
// would allocate for it before noticing the data is missing.
ImageSize checked(const std::filesystem::path& path, std::uint64_t width, std::uint64_t height,
                  std::streamoff file_size, PixelCoding coding) {
  if (width == 0 || height == 0) fail(path, "its header declares a zero width or height");
  const std::string implausible = implausible_pixels(width, height, static_cast<std::uint64_t>(file_size), coding);
  if (!implausible.empty()) fail(path, implausible);
  return {static_cast<int>(width), static_cast<int>(height)};
}

// SOF9-SOF11 and SOF13-SOF15 are arithmetic-coded.
PixelCoding jpeg_coding(int marker) {
  return marker >= 0xC9 && marker != 0xCC ? PixelCoding::jpeg_arithmetic : PixelCoding::jpeg_huffman;
}

ImageSize read_jpeg_size(std::ifstream& in, std::streamoff file_size,
                         const std::filesystem::path& path) {
  in.seekg(2);
  int orientation = 1;
  bool exif_seen = false;
  for (;;) {
    const int byte = in.get();
    if (byte == EOF) fail(path, "it is truncated inside its JPEG header");
    if (byte != 0xFF) fail(path, "its JPEG header is corrupt (expected a marker)");
    int marker = 0xFF;
    while (marker == 0xFF) marker = in.get();  // fill bytes before a marker are legal
    if (marker == EOF) fail(path, "it is truncated inside its JPEG header");
    if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue;
    if (marker == 0xD9 || marker == 0xDA) fail(path, "its JPEG header has no frame size");
    std::uint8_t length_bytes[2];
    if (!in.read(reinterpret_cast<char*>(length_bytes), 2))
      fail(path, "it is truncated inside its JPEG header");
    const int length = (length_bytes[0] << 8) | length_bytes[1];
    if (length < 2) fail(path, "its JPEG header has a segment with an invalid length");
    const bool want_payload = is_start_of_frame(marker) || (marker == 0xE1 && !exif_seen);
    if (!want_payload) {
      in.seekg(length - 2, std::ios::cur);
      if (!in || in.tellg() > file_size) fail(path, "it is truncated inside its JPEG header");
      continue;
    }
    std::vector<std::uint8_t> payload(static_cast<std::size_t>(length - 2));
    if (!in.read(reinterpret_cast<char*>(payload.data()),
                 static_cast<std::streamsize>(payload.size())))
      fail(path, "it is truncated inside its JPEG header");
    if (marker == 0xE1) {
      const int parsed = parse_exif_orientation(payload.data(), payload.size());
      // Only the first Exif block counts (XMP also lives in APP1 and has no orientation).
      if (payload.size() >= 6 && std::memcmp(payload.data(), "Exif\0\0", 6) == 0) {
        exif_seen = true;
        orientation = parsed;
      }
      continue;
    }
    if (payload.size() < 5) fail(path, "its JPEG frame header is too short");
    const std::uint64_t height = (payload[1] << 8) | payload[2];
    const std::uint64_t width = (payload[3] << 8) | payload[4];
    const ImageSize stored = checked(path, width, height, file_size, jpeg_coding(marker));
    if (!tail_contains(in, file_size, in.tellg(), "\xFF\xD9", 2))
      fail(path, "it is truncated: no JPEG end-of-image marker at its end");
    return oriented_size(stored, orientation);
  }
}

ImageSize read_png_size(std::ifstream& in, std::streamoff file_size,
                        const std::filesystem::path& path) {
  std::uint8_t header[24];
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(header), sizeof header))
    fail(path, "it is truncated inside its PNG header");
  if (std::memcmp(header + 12, "IHDR", 4) != 0 || be32(header + 8) != 13)
    fail(path, "its PNG header does not start with an IHDR chunk");
  const std::uint32_t width = be32(header + 16);
  const std::uint32_t height = be32(header + 20);
  if (width > 0x7FFFFFFFu || height > 0x7FFFFFFFu) fail(path, "its PNG header is corrupt");
  const ImageSize size = checked(path, width, height, file_size, PixelCoding::png);
  if (!tail_contains(in, file_size, 33, "IEND", 4))
    fail(path, "it is truncated: no PNG IEND chunk at its end");
  return size;
}

}  // namespace

ImageSize read_image_size(const std::filesystem::path& path) {
  // Before opening: an ifstream on a FIFO would wait for a writer forever.
  if (const std::string reason = util::not_regular_file_reason(path); !reason.empty()) {
    fail(path, reason);
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    const int saved_errno = errno;
    fail(path, saved_errno != 0 ? std::strerror(saved_errno) : "it could not be opened");
  }
  const std::streamoff file_size = in.tellg();
  std::uint8_t signature[16] = {};
  in.seekg(0);
  in.read(reinterpret_cast<char*>(signature), sizeof signature);
  const std::size_t got = static_cast<std::size_t>(in.gcount());
  in.clear();
  switch (detect_image_format(signature, got)) {
    case ImageFormat::kJpeg:
      return read_jpeg_size(in, file_size, path);
    case ImageFormat::kPng:
      return read_png_size(in, file_size, path);
    case ImageFormat::kUnknown:
      break;
  }
  fail(path, describe_unsupported_signature(signature, got));
}

}  // namespace libreyolo::core::data

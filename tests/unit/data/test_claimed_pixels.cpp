// A header that claims far more pixels than its file holds is refused before anything is
// allocated for it, by the scan's header reader and by both decoders (issue #20, item 12).
#include <doctest/doctest.h>

#include <zlib.h>

#include "data_test_support.hpp"
#include "libreyolo/core/data/image/claimed_pixels.hpp"
#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/data/image/image_header.hpp"
#include "libreyolo/core/error.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::data;
using namespace libreyolo::test;

namespace {

void put_be16(std::vector<std::uint8_t>& b, std::size_t at, unsigned v) {
  b[at] = static_cast<std::uint8_t>(v >> 8);
  b[at + 1] = static_cast<std::uint8_t>(v);
}

void put_be32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

// A real 32x32 JPEG whose frame header (SOF0) now says width x height.
std::vector<std::uint8_t> forged_jpeg(unsigned width, unsigned height) {
  auto bytes = encode_jpeg(32, 32, 3, solid(32, 32, 3, 90));
  for (std::size_t i = 0; i + 8 < bytes.size(); ++i) {
    if (bytes[i] == 0xFF && bytes[i + 1] == 0xC0) {  // marker, length (2), precision (1), height, width
      put_be16(bytes, i + 5, height);
      put_be16(bytes, i + 7, width);
      return bytes;
    }
  }
  FAIL("no SOF0 marker");
  return bytes;
}

// A real 8x8 PNG whose IHDR now says width x height, with its CRC fixed so that only the size lies.
std::vector<std::uint8_t> forged_png(std::uint32_t width, std::uint32_t height) {
  auto bytes = encode_png(PngSpec(8, 8, PNG_COLOR_TYPE_RGB, 8), solid(8, 8, 3, 200));
  put_be32(bytes, 16, width);
  put_be32(bytes, 20, height);
  put_be32(bytes, 29, static_cast<std::uint32_t>(crc32(0, bytes.data() + 12, 17)));  // type + 13 data bytes
  return bytes;
}

std::string header_error(const TempDir& dir, const std::string& name, const std::vector<std::uint8_t>& bytes) {
  write_bytes(dir / name, bytes);
  try {
    read_image_size(dir / name);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string decode_error(const std::vector<std::uint8_t>& bytes) {
  try {
    decode_image_bytes(bytes.data(), bytes.size(), "forged", 0);
  } catch (const Error& e) {
    return e.what();
  }
  return "(decoded)";
}

}  // namespace

TEST_CASE("a JPEG header claiming 16000x16000 pixels in a 1 KB file is refused before decoding") {
  TempDir dir;
  const auto bytes = forged_jpeg(16000, 16000);
  REQUIRE(bytes.size() < 4096);
  const auto scan = header_error(dir, "bomb.jpg", bytes);
  CHECK(scan.find("its header claims 16000x16000 pixels but the file holds only") != std::string::npos);
  CHECK(scan.find("damaged or forged") != std::string::npos);
  CHECK(decode_error(bytes).find("its header claims 16000x16000 pixels") != std::string::npos);
}

TEST_CASE("a PNG header claiming 16000x16000 pixels in a small file is refused before decoding") {
  TempDir dir;
  const auto bytes = forged_png(16000, 16000);
  CHECK(header_error(dir, "bomb.png", bytes).find("its header claims 16000x16000 pixels") != std::string::npos);
  CHECK(decode_error(bytes).find("its header claims 16000x16000 pixels") != std::string::npos);
}

TEST_CASE("sizes beyond 2^28 pixels are refused whatever the file size; honest sizes pass") {
  TempDir dir;
  CHECK(header_error(dir, "huge.jpg", forged_jpeg(60000, 60000)).find("more than this host accepts") != std::string::npos);
  CHECK(header_error(dir, "honest.jpg", encode_jpeg(32, 32, 3, solid(32, 32, 3, 90))) == "(accepted)");
  // Up to 4 megapixels are always believed (a decode then costs at most 12 MB), and an
  // arithmetic-coded JPEG has no bound worth checking.
  CHECK(implausible_pixels(2048, 2048, 100, PixelCoding::jpeg_huffman).empty());
  CHECK(implausible_pixels(16000, 16000, 100, PixelCoding::jpeg_arithmetic).empty());
  CHECK_FALSE(implausible_pixels(16000, 16000, 100, PixelCoding::jpeg_huffman).empty());
  // A flat 16000x16000 baseline JPEG is about 300 KB: far from the limit (4096 pixels per byte).
  CHECK(implausible_pixels(16000, 16000, 300000, PixelCoding::jpeg_huffman).empty());
}

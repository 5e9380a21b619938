// Decoding JPEG and PNG flavours to upright 8-bit RGB, and refusing bad files cleanly.
#include <doctest/doctest.h>

#include <cstdlib>
#include <random>

#include "data_test_support.hpp"
#include "libreyolo/core/data/image/exif_orientation.hpp"
#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/error.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::data;
using namespace libreyolo::test;

namespace {

void check_pixel(const Image& image, int x, int y, int r, int g, int b, int tolerance) {
  const std::uint8_t* p = image.pixel(x, y);
  INFO("pixel (" << x << ", " << y << ") = " << int(p[0]) << " " << int(p[1]) << " " << int(p[2]));
  CHECK(std::abs(p[0] - r) <= tolerance);
  CHECK(std::abs(p[1] - g) <= tolerance);
  CHECK(std::abs(p[2] - b) <= tolerance);
}

Image decode_written(const TempDir& dir, const std::string& name,
                     const std::vector<std::uint8_t>& bytes) {
  write_bytes(dir / name, bytes);
  return decode_image(dir / name);
}

std::vector<std::uint8_t> big_endian_16(const std::vector<unsigned>& samples) {
  std::vector<std::uint8_t> out;
  for (unsigned s : samples) {
    out.push_back(static_cast<std::uint8_t>(s >> 8));
    out.push_back(static_cast<std::uint8_t>(s & 0xFF));
  }
  return out;
}

}  // namespace

TEST_CASE("JPEG: RGB, grayscale and Adobe CMYK/YCCK decode to RGB") {
  TempDir dir;
  // Left half red, right half blue, split on an MCU boundary so quality 100 stays near-exact.
  std::vector<std::uint8_t> rgb(32 * 16 * 3);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 32; ++x) {
      std::uint8_t* p = rgb.data() + (y * 32 + x) * 3;
      p[0] = x < 16 ? 255 : 0;
      p[1] = 0;
      p[2] = x < 16 ? 0 : 255;
    }
  Image image = decode_written(dir, "rgb.jpg", encode_jpeg(32, 16, 3, rgb));
  REQUIRE(image.width == 32);
  REQUIRE(image.height == 16);
  REQUIRE(image.pixels.size() == 32u * 16u * 3u);
  check_pixel(image, 4, 8, 255, 0, 0, 6);
  check_pixel(image, 28, 8, 0, 0, 255, 6);

  image = decode_written(dir, "gray.jpg", encode_jpeg(16, 8, 1, solid(16, 8, 1, 100)));
  CHECK(image.width == 16);
  check_pixel(image, 3, 3, 100, 100, 100, 1);

  // Adobe CMYK is stored inverted: pure red (C=0 M=255 Y=255 K=0) is written as 255 0 0 255.
  std::vector<std::uint8_t> cmyk;
  for (int i = 0; i < 16 * 16; ++i) cmyk.insert(cmyk.end(), {255, 0, 0, 255});
  check_pixel(decode_written(dir, "cmyk.jpg", encode_jpeg(16, 16, 4, cmyk)), 8, 8, 255, 0, 0, 4);
  check_pixel(decode_written(dir, "ycck.jpg", encode_jpeg(16, 16, 4, cmyk, {}, true)), 8, 8, 255, 0,
              0, 6);
}

TEST_CASE("JPEG: EXIF orientation turns pixels and the reported size upright") {
  TempDir dir;
  std::uint8_t white[3] = {255, 255, 255};
  std::uint8_t red[3] = {255, 0, 0};
  // Stored 48x16 with a red 16x16 block at the stored top-left.
  const std::vector<std::uint8_t> stored = rgb_with_corner_block(48, 16, 16, white, red);
  struct Case {
    int orientation;
    bool right;
    bool bottom;
  };
  const Case cases[] = {{1, false, false}, {2, true, false}, {3, true, true}, {4, false, true},
                        {5, false, false}, {6, true, false}, {7, true, true}, {8, false, true}};
  for (const Case& c : cases) {
    for (bool little_endian : {true, false}) {
      CAPTURE(c.orientation);
      CAPTURE(little_endian);
      const std::string name =
          "o" + std::to_string(c.orientation) + (little_endian ? "le" : "be") + ".jpg";
      write_bytes(dir / name,
                  encode_jpeg(48, 16, 3, stored, exif_app1(c.orientation, little_endian)));
      const Image image = decode_image(dir / name);
      const bool swapped = c.orientation >= 5;
      REQUIRE(image.width == (swapped ? 16 : 48));
      REQUIRE(image.height == (swapped ? 48 : 16));
      const ImageSize header = read_image_size(dir / name);
      CHECK(header.width == image.width);
      CHECK(header.height == image.height);
      const int x = c.right ? image.width - 8 : 7;
      const int y = c.bottom ? image.height - 8 : 7;
      check_pixel(image, x, y, 255, 0, 0, 8);
      // The opposite corner stays white.
      check_pixel(image, c.right ? 7 : image.width - 8, c.bottom ? 7 : image.height - 8, 255, 255,
                  255, 8);
    }
  }
}

TEST_CASE("EXIF parsing ignores malformed blocks") {
  const std::vector<std::uint8_t> good = exif_app1(6);
  CHECK(parse_exif_orientation(good.data(), good.size()) == 6);
  CHECK(parse_exif_orientation(good.data(), 20) == 1);  // cut inside the IFD
  std::vector<std::uint8_t> bad_value = exif_app1(9);
  CHECK(parse_exif_orientation(bad_value.data(), bad_value.size()) == 1);
  std::vector<std::uint8_t> not_exif = good;
  not_exif[0] = 'X';
  CHECK(parse_exif_orientation(not_exif.data(), not_exif.size()) == 1);
  std::vector<std::uint8_t> bad_offset = good;
  bad_offset[10] = 0xFF;  // IFD0 offset far beyond the block
  CHECK(parse_exif_orientation(bad_offset.data(), bad_offset.size()) == 1);
  CHECK(parse_exif_orientation(nullptr, 0) == 1);
}

TEST_CASE("PNG: every colour type and bit depth decodes to 8-bit RGB") {
  TempDir dir;
  SUBCASE("8-bit gray") {
    const Image image = decode_written(
        dir, "g8.png", encode_png({4, 2, PNG_COLOR_TYPE_GRAY, 8}, solid(4, 2, 1, 77)));
    REQUIRE(image.width == 4);
    check_pixel(image, 3, 1, 77, 77, 77, 0);
  }
  SUBCASE("1-bit gray") {
    // 8 pixels per byte: 0b10100000 -> white, black, white, black...
    const Image image =
        decode_written(dir, "g1.png", encode_png({4, 1, PNG_COLOR_TYPE_GRAY, 1}, {0xA0}));
    check_pixel(image, 0, 0, 255, 255, 255, 0);
    check_pixel(image, 1, 0, 0, 0, 0, 0);
    check_pixel(image, 2, 0, 255, 255, 255, 0);
  }
  SUBCASE("16-bit gray and RGB are scaled, not truncated to garbage") {
    Image image = decode_written(
        dir, "g16.png",
        encode_png({2, 1, PNG_COLOR_TYPE_GRAY, 16}, big_endian_16({0x8080, 0xFFFF})));
    check_pixel(image, 0, 0, 128, 128, 128, 0);
    check_pixel(image, 1, 0, 255, 255, 255, 0);
    image = decode_written(
        dir, "rgb16.png",
        encode_png({1, 1, PNG_COLOR_TYPE_RGB, 16}, big_endian_16({0xFFFF, 0x0000, 0x4040})));
    check_pixel(image, 0, 0, 255, 0, 64, 0);
  }
  SUBCASE("gray + alpha and RGBA drop alpha without compositing") {
    Image image =
        decode_written(dir, "ga.png", encode_png({1, 1, PNG_COLOR_TYPE_GRAY_ALPHA, 8}, {200, 0}));
    check_pixel(image, 0, 0, 200, 200, 200, 0);
    image = decode_written(
        dir, "rgba.png",
        encode_png({2, 1, PNG_COLOR_TYPE_RGBA, 8}, {10, 20, 30, 0, 40, 50, 60, 255}));
    check_pixel(image, 0, 0, 10, 20, 30, 0);
    check_pixel(image, 1, 0, 40, 50, 60, 0);
  }
  SUBCASE("palette with transparency") {
    PngSpec spec{3, 1, PNG_COLOR_TYPE_PALETTE, 8};
    spec.palette = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
    spec.palette_alpha = {0, 128, 255};
    const Image image = decode_written(dir, "pal.png", encode_png(spec, {2, 1, 0}));
    check_pixel(image, 0, 0, 0, 0, 255, 0);
    check_pixel(image, 1, 0, 0, 255, 0, 0);
    check_pixel(image, 2, 0, 255, 0, 0, 0);
  }
  SUBCASE("interlaced RGB") {
    PngSpec spec{9, 9, PNG_COLOR_TYPE_RGB, 8};
    spec.interlaced = true;
    std::vector<std::uint8_t> rows(9 * 9 * 3);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::uint8_t>(i);
    const Image image = decode_written(dir, "interlaced.png", encode_png(spec, rows));
    CHECK(image.pixels == rows);
    const ImageSize size = read_image_size(dir / "interlaced.png");
    CHECK(size.width == 9);
    CHECK(size.height == 9);
  }
}

TEST_CASE("Decoding goes by content, not extension") {
  TempDir dir;
  write_bytes(dir / "really_a_png.jpg",
              encode_png({2, 2, PNG_COLOR_TYPE_GRAY, 8}, solid(2, 2, 1, 9)));
  check_pixel(decode_image(dir / "really_a_png.jpg"), 1, 1, 9, 9, 9, 0);
}

TEST_CASE("Corrupt, truncated, empty, missing and foreign files give an Error naming the file") {
  TempDir dir;
  const std::vector<std::uint8_t> jpeg = encode_jpeg(64, 64, 3, solid(64, 64, 3, 90));
  const std::vector<std::uint8_t> png =
      encode_png({64, 64, PNG_COLOR_TYPE_RGB, 8}, solid(64, 64, 3, 90));
  std::mt19937 rng(7);
  std::vector<std::uint8_t> noise(4096);
  for (auto& b : noise) b = static_cast<std::uint8_t>(rng());
  std::vector<std::uint8_t> jpeg_magic_then_noise = noise;
  std::copy(jpeg.begin(), jpeg.begin() + 3, jpeg_magic_then_noise.begin());
  std::vector<std::uint8_t> png_magic_then_noise = noise;
  std::copy(png.begin(), png.begin() + 8, png_magic_then_noise.begin());

  const std::vector<std::pair<std::string, std::vector<std::uint8_t>>> bad = {
      {"half.jpg", std::vector<std::uint8_t>(jpeg.begin(), jpeg.begin() + jpeg.size() / 2)},
      {"no_eoi.jpg", std::vector<std::uint8_t>(jpeg.begin(), jpeg.end() - 2)},
      {"header_only.jpg", std::vector<std::uint8_t>(jpeg.begin(), jpeg.begin() + 40)},
      {"half.png", std::vector<std::uint8_t>(png.begin(), png.begin() + png.size() / 2)},
      {"no_iend.png", std::vector<std::uint8_t>(png.begin(), png.end() - 12)},
      {"noise.jpg", noise},
      {"empty.png", {}},
      {"gif.png", {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0}},
      {"jpeg_magic_then_noise.jpg", jpeg_magic_then_noise},
      {"png_magic_then_noise.png", png_magic_then_noise},
  };
  for (const auto& [name, bytes] : bad) {
    CAPTURE(name);
    write_bytes(dir / name, bytes);
    try {
      decode_image(dir / name);
      FAIL("decode_image accepted " << name);
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find(name) != std::string::npos);
      CHECK_FALSE(e.why().empty());
    }
    CHECK_THROWS_AS(read_image_size(dir / name), Error);
  }
  CHECK_THROWS_AS(decode_image(dir / "missing.jpg"), Error);
  CHECK_THROWS_AS(read_image_size(dir / "missing.jpg"), Error);
  CHECK_THROWS_AS(read_image_size(dir.path()), Error);  // a folder
}

TEST_CASE("Mutated JPEG and PNG bytes never crash the decoders") {
  const std::vector<std::uint8_t> jpeg = encode_jpeg(32, 32, 3, solid(32, 32, 3, 50), exif_app1(6));
  const std::vector<std::uint8_t> png =
      encode_png({32, 32, PNG_COLOR_TYPE_RGB, 8}, solid(32, 32, 3, 50));
  std::mt19937 rng(1234);
  int rejected = 0;
  for (const auto* original : {&jpeg, &png}) {
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<std::uint8_t> bytes = *original;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f)
        bytes[rng() % bytes.size()] = static_cast<std::uint8_t>(rng());
      try {
        const Image image = decode_image_bytes(bytes.data(), bytes.size(), "mutated");
        CHECK(image.pixels.size() == image.row_bytes() * static_cast<std::size_t>(image.height));
      } catch (const Error&) {
        ++rejected;
      }
    }
  }
  MESSAGE(rejected << " of 600 mutated files were rejected with an Error, the rest decoded");
}

TEST_CASE("A long-side hint lets JPEGs decode at reduced scale, never below the hint") {
  TempDir dir;
  write_bytes(dir / "big.jpg", encode_jpeg(64, 32, 3, solid(64, 32, 3, 200), exif_app1(6)));
  write_bytes(dir / "big.png", encode_png({64, 32, PNG_COLOR_TYPE_RGB, 8}, solid(64, 32, 3, 200)));
  struct Case {
    int hint;
    int long_side;
  };
  for (const Case& c : {Case{0, 64}, Case{64, 64}, Case{33, 64}, Case{32, 32}, Case{17, 32},
                        Case{16, 16}, Case{9, 16}, Case{8, 8}, Case{1, 8}, Case{1000, 64}}) {
    CAPTURE(c.hint);
    const Image image = decode_image(dir / "big.jpg", c.hint);
    CHECK(image.height == c.long_side);  // EXIF 6: the long side is the height once upright
    CHECK(image.width == c.long_side / 2);
    check_pixel(image, image.width / 2, image.height / 2, 200, 200, 200, 2);
  }
  CHECK(decode_image(dir / "big.png", 8).width == 64);
}

// Our JPEG and PNG writers, checked by decoding what they wrote with our own decoders.
#include <doctest/doctest.h>

#include <cstdlib>

#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/error.hpp"
#include "temp_dir.hpp"

using namespace libreyolo::core;

namespace {

// A gradient with a sharp red square: smooth areas and an edge, both worth round-tripping.
data::Image test_pattern(int width, int height) {
  data::Image image{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * 3)};
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      auto* p = image.pixel(x, y);
      const bool square = x >= width / 4 && x < width / 2 && y >= height / 4 && y < height / 2;
      p[0] = square ? 230 : static_cast<std::uint8_t>(x * 255 / width);
      p[1] = square ? 20 : static_cast<std::uint8_t>(y * 255 / height);
      p[2] = square ? 30 : 128;
    }
  }
  return image;
}

int max_difference(const data::Image& a, const data::Image& b) {
  int worst = 0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i) worst = std::max(worst, std::abs(int(a.pixels[i]) - int(b.pixels[i])));
  return worst;
}

double mean_difference(const data::Image& a, const data::Image& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i) sum += std::abs(int(a.pixels[i]) - int(b.pixels[i]));
  return sum / static_cast<double>(a.pixels.size());
}

}  // namespace

TEST_CASE("encode_png round-trips every pixel exactly") {
  const auto image = test_pattern(37, 23);  // odd sizes: no row padding assumptions
  const auto bytes = draw::encode_png(image);
  const auto decoded = data::decode_image_bytes(bytes.data(), bytes.size(), "memory.png");
  REQUIRE(decoded.width == 37);
  REQUIRE(decoded.height == 23);
  CHECK(decoded.pixels == image.pixels);
}

TEST_CASE("encode_jpeg keeps the size and stays close to the pixels") {
  const auto image = test_pattern(64, 40);
  const auto bytes = draw::encode_jpeg(image, 95);
  REQUIRE(bytes.size() > 2);
  CHECK(bytes[0] == 0xFF);
  CHECK(bytes[1] == 0xD8);  // SOI
  const auto decoded = data::decode_image_bytes(bytes.data(), bytes.size(), "memory.jpg");
  REQUIRE(decoded.width == 64);
  REQUIRE(decoded.height == 40);
  CHECK(mean_difference(decoded, image) < 2.0);
  // Inside the red square, away from its edge, the colour survives (4:4:4 at quality 95).
  const auto* inside = decoded.pixel(24, 15);
  CHECK(std::abs(int(inside[0]) - 230) < 8);
  CHECK(std::abs(int(inside[1]) - 20) < 8);
  // Low quality still decodes, just worse.
  const auto rough = draw::encode_jpeg(image, 20);
  const auto rough_decoded = data::decode_image_bytes(rough.data(), rough.size(), "rough.jpg");
  CHECK(rough.size() < bytes.size());
  CHECK(max_difference(rough_decoded, image) > max_difference(decoded, image));
}

TEST_CASE("write_image picks the format by extension and the file decodes") {
  libreyolo::test::TempDir dir;
  const auto image = test_pattern(20, 10);
  draw::write_image(dir / "a.png", image);
  draw::write_image(dir / "b.JPG", image);
  draw::write_image(dir / "c.jpeg", image);
  CHECK(draw::format_for_path("x.PNG") == draw::EncodedFormat::png);
  CHECK(draw::format_for_path("x.jpeg") == draw::EncodedFormat::jpeg);
  CHECK(data::decode_image(dir / "a.png").pixels == image.pixels);
  CHECK(data::decode_image(dir / "b.JPG").width == 20);
  CHECK(data::decode_image(dir / "c.jpeg").height == 10);
}

TEST_CASE("encoders refuse an empty image and write_image an unwritable path") {
  CHECK_THROWS_AS(draw::encode_png(data::Image{}), Error);
  CHECK_THROWS_AS(draw::encode_jpeg(data::Image{}), Error);
  CHECK_THROWS_WITH_AS(draw::write_image("/nonexistent-folder/x.png", test_pattern(4, 4)),
                       doctest::Contains("cannot write /nonexistent-folder/x.png"), Error);
}

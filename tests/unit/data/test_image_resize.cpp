// Area downscaling and bilinear upscaling of uint8 RGB images.
#include <doctest/doctest.h>

#include "libreyolo/core/data/image/image_resize.hpp"
#include "libreyolo/core/error.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::data;

namespace {

Image gray_image(int width, int height, const std::vector<int>& values) {
  Image image;
  image.width = width;
  image.height = height;
  for (int v : values) image.pixels.insert(image.pixels.end(), 3, static_cast<std::uint8_t>(v));
  return image;
}

Image solid_image(int width, int height, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  Image image;
  image.width = width;
  image.height = height;
  image.pixels.resize(static_cast<std::size_t>(width) * height * 3);
  for (std::size_t i = 0; i < image.pixels.size(); i += 3) {
    image.pixels[i] = r;
    image.pixels[i + 1] = g;
    image.pixels[i + 2] = b;
  }
  return image;
}

}  // namespace

TEST_CASE("Area downscaling averages every source pixel") {
  const Image image = gray_image(4, 4,
                                 {0, 10, 100, 100,   //
                                  20, 30, 100, 100,  //
                                  200, 200, 0, 0,    //
                                  200, 200, 255, 255});
  const Image half = resize_image(image, 2, 2);
  REQUIRE(half.width == 2);
  REQUIRE(half.height == 2);
  CHECK(half.pixel(0, 0)[0] == 15);
  CHECK(half.pixel(1, 0)[0] == 100);
  CHECK(half.pixel(0, 1)[0] == 200);
  CHECK(half.pixel(1, 1)[1] == 128);  // 127.5 rounds half away from zero

  // Non-integer factor: 3 -> 2 gives weights 2/3, 1/3 and 1/3, 2/3.
  const Image row = resize_image(gray_image(3, 1, {0, 90, 180}), 2, 1);
  CHECK(row.pixel(0, 0)[0] == 30);
  CHECK(row.pixel(1, 0)[0] == 150);
}

TEST_CASE("Bilinear upscaling keeps corners and interpolates between pixel centres") {
  const Image image = gray_image(2, 1, {0, 200});
  const Image wide = resize_image(image, 4, 1);
  CHECK(wide.pixel(0, 0)[0] == 0);
  CHECK(wide.pixel(1, 0)[0] == 50);
  CHECK(wide.pixel(2, 0)[0] == 150);
  CHECK(wide.pixel(3, 0)[0] == 200);
}

TEST_CASE("resize_long_side keeps the aspect ratio and a solid colour stays solid") {
  const Image landscape = resize_long_side(solid_image(100, 50, 10, 20, 30), 64);
  CHECK(landscape.width == 64);
  CHECK(landscape.height == 32);
  for (std::size_t i = 0; i < landscape.pixels.size(); i += 3) {
    REQUIRE(landscape.pixels[i] == 10);
    REQUIRE(landscape.pixels[i + 1] == 20);
    REQUIRE(landscape.pixels[i + 2] == 30);
  }
  const Image portrait = resize_long_side(solid_image(30, 90, 1, 2, 3), 64);
  CHECK(portrait.width == 21);
  CHECK(portrait.height == 64);
  const Image up = resize_long_side(solid_image(5, 3, 9, 9, 9), 640);
  CHECK(up.width == 640);
  CHECK(up.height == 384);
  CHECK(up.pixel(639, 383)[0] == 9);
  const Image sliver = resize_long_side(solid_image(1000, 1, 4, 4, 4), 100);
  CHECK(sliver.height == 1);
  const Image same = resize_long_side(landscape, 64);
  CHECK(same.pixels == landscape.pixels);
}

TEST_CASE("Resizing rejects empty images and non-positive sizes") {
  CHECK_THROWS_AS(resize_image(Image{}, 4, 4), Error);
  CHECK_THROWS_AS(resize_image(solid_image(2, 2, 0, 0, 0), 0, 4), Error);
  CHECK_THROWS_AS(resize_long_side(solid_image(2, 2, 0, 0, 0), -1), Error);
  Image inconsistent = solid_image(2, 2, 0, 0, 0);
  inconsistent.pixels.pop_back();
  CHECK_THROWS_AS(resize_image(inconsistent, 1, 1), Error);
}

#include "../torch_doctest.hpp"

#include "libreyolo/core/data/loader/network_input.hpp"

using namespace libreyolo;
using namespace libreyolo::core::data;

TEST_CASE("network input: RGB / 255 (YOLOv9-style), channels-last, values exact") {
  auto images = torch::zeros({2, 4, 6, 3}, torch::kUInt8);
  images[1][2][3][0] = 255;
  images[1][2][3][1] = 51;
  images[1][2][3][2] = 0;
  sdk::InputFormat format;  // rgb, 1/255
  const auto x = to_network_input(images, format);
  CHECK(x.sizes() == torch::IntArrayRef({2, 3, 4, 6}));
  CHECK(x.is_contiguous(torch::MemoryFormat::ChannelsLast));
  CHECK(x[1][0][2][3].item<float>() == doctest::Approx(1.0));
  CHECK(x[1][1][2][3].item<float>() == doctest::Approx(0.2));
  CHECK(x[1][2][2][3].item<float>() == 0.f);
}

TEST_CASE("network input: BGR 0-255 (YOLOX-style) and mean/std") {
  auto images = torch::zeros({1, 2, 2, 3}, torch::kUInt8);
  images[0][0][0][0] = 10;  // R
  images[0][0][0][2] = 30;  // B
  sdk::InputFormat bgr;
  bgr.channel_order = sdk::InputFormat::ChannelOrder::bgr;
  bgr.scale = 1.f;
  const auto x = to_network_input(images, bgr);
  CHECK(x[0][0][0][0].item<float>() == 30.f);  // channel 0 is blue
  CHECK(x[0][2][0][0].item<float>() == 10.f);
  sdk::InputFormat imagenet;
  imagenet.mean[0] = 0.5f;
  imagenet.std[0] = 0.25f;
  const auto y = to_network_input(images, imagenet);
  CHECK(y[0][0][0][0].item<float>() == doctest::Approx((10.0 / 255.0 - 0.5) / 0.25));
}

TEST_CASE("multi-scale resize scales the images and the target boxes together") {
  auto images = torch::rand({2, 3, 64, 64});
  auto targets = torch::tensor({{{3.f, 32.f, 16.f, 8.f, 4.f}}, {{0.f, 0.f, 0.f, 0.f, 0.f}}});
  resize_batch(images, targets, 96);
  CHECK(images.sizes() == torch::IntArrayRef({2, 3, 96, 96}));
  CHECK(targets[0][0][0].item<float>() == 3.f);  // class untouched
  CHECK(targets[0][0][1].item<float>() == doctest::Approx(48.f));
  CHECK(targets[0][0][4].item<float>() == doctest::Approx(6.f));
  CHECK(targets[1].abs().sum().item<float>() == 0.f);
}

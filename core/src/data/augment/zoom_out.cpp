#include "libreyolo/core/data/augment/zoom_out.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "libreyolo/core/data/augment/random.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

void check_config(const sdk::augment::ZoomOut& config) {
  if (!(config.side.low >= 1.0 && config.side.low <= config.side.high)) {
    throw Error("zoom out: side range (" + std::to_string(config.side.low) + ", " +
                    std::to_string(config.side.high) + ") is not usable",
                "the canvas side is side.low to side.high times the image side, with "
                "1 <= side.low <= side.high",
                "set side to a range such as (1, 4)");
  }
  if (config.fill < 0 || config.fill > 255) {
    throw Error("zoom out: fill " + std::to_string(config.fill) + " is not a byte",
                "the canvas is filled with one uint8 value", "set fill in 0..255");
  }
}

void resize_to(Image& out, int width, int height) {
  out.width = width;
  out.height = height;
  out.pixels.resize(static_cast<std::size_t>(width) * height * Image::kChannels);
}

}  // namespace

ZoomOutParams draw_zoom_out(const sdk::augment::ZoomOut& config, ImageSize image,
                            std::size_t box_count, std::mt19937_64& rng) {
  check_config(config);
  ZoomOutParams params;
  params.fill = static_cast<std::uint8_t>(config.fill);
  params.canvas_width = image.width;
  params.canvas_height = image.height;
  if (config.skip_without_boxes && box_count == 0) return params;
  // _RandomApplyTransform: skipped when torch.rand(1) >= p.
  params.applied = uniform01_f32(rng) < static_cast<float>(config.prob);
  if (!params.applied) return params;
  // side.low + torch.rand(1) * (side.high - side.low), a float32 tensor; then int(w * r).
  const float span = static_cast<float>(config.side.high - config.side.low);
  const float scaled = uniform01_f32(rng) * span;
  const float r = static_cast<float>(config.side.low) + scaled;
  params.canvas_width = static_cast<int>(static_cast<float>(image.width) * r);
  params.canvas_height = static_cast<int>(static_cast<float>(image.height) * r);
  // r = torch.rand(2): left from r[0], top from r[1].
  const float u_left = uniform01_f32(rng);
  const float u_top = uniform01_f32(rng);
  params.left = static_cast<int>(static_cast<float>(params.canvas_width - image.width) * u_left);
  params.top = static_cast<int>(static_cast<float>(params.canvas_height - image.height) * u_top);
  return params;
}

void apply_zoom_out(ImageView image, const ZoomOutParams& params, Image& out,
                    std::vector<PixelBox>& boxes) {
  if (!params.applied) {
    resize_to(out, image.width, image.height);
    std::memcpy(out.pixels.data(), image.pixels, out.pixels.size());
    return;
  }
  if (!(params.left >= 0 && params.top >= 0 && params.left + image.width <= params.canvas_width &&
        params.top + image.height <= params.canvas_height)) {
    throw Error("zoom out: a " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                    " image does not fit its " + std::to_string(params.canvas_width) + "x" +
                    std::to_string(params.canvas_height) + " canvas at (" +
                    std::to_string(params.left) + ", " + std::to_string(params.top) + ")",
                "the parameters were not drawn for this image", "draw them with draw_zoom_out");
  }
  resize_to(out, params.canvas_width, params.canvas_height);
  const std::size_t out_row = out.row_bytes();
  const std::size_t image_row = static_cast<std::size_t>(image.width) * Image::kChannels;
  const std::size_t left_bytes = static_cast<std::size_t>(params.left) * Image::kChannels;
  const std::size_t right_bytes = out_row - left_bytes - image_row;
  // Fill only what the image does not cover: rows above and below, strips left and right.
  for (int y = 0; y < out.height; ++y) {
    std::uint8_t* row = out.pixels.data() + static_cast<std::size_t>(y) * out_row;
    const int source_y = y - params.top;
    if (source_y < 0 || source_y >= image.height) {
      std::memset(row, params.fill, out_row);
      continue;
    }
    std::memset(row, params.fill, left_bytes);
    std::memcpy(row + left_bytes, image.pixels + static_cast<std::size_t>(source_y) * image_row,
                image_row);
    std::memset(row + left_bytes + image_row, params.fill, right_bytes);
  }
  // pad_bounding_boxes: shift in float32, then clamp to the canvas.
  const float dx = static_cast<float>(params.left), dy = static_cast<float>(params.top);
  const float w = static_cast<float>(out.width), h = static_cast<float>(out.height);
  for (PixelBox& b : boxes) {
    b.x1 = std::clamp(b.x1 + dx, 0.0f, w);
    b.x2 = std::clamp(b.x2 + dx, 0.0f, w);
    b.y1 = std::clamp(b.y1 + dy, 0.0f, h);
    b.y2 = std::clamp(b.y2 + dy, 0.0f, h);
  }
}

}  // namespace libreyolo::core::data

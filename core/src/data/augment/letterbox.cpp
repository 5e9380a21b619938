#include "libreyolo/core/data/augment/letterbox.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

int scaled_side(int side, int long_side, int imgsz, double scale) {
  if (side == long_side) return imgsz;
  // floor like Python's int(); the epsilon keeps 0.9999999 artefacts of the division whole.
  const int n = static_cast<int>(std::floor(side * scale + 1e-9));
  return std::clamp(n, 1, imgsz);
}

}  // namespace

LetterboxInfo letterbox_info(ImageSize in, int imgsz, LetterboxPad pad) {
  if (in.width <= 0 || in.height <= 0 || imgsz <= 0) {
    throw Error("cannot letterbox a " + std::to_string(in.width) + "x" +
                    std::to_string(in.height) + " image to " + std::to_string(imgsz),
                "both the image and the target size must be positive",
                "check the image decodes and imgsz is a positive number");
  }
  const int long_side = std::max(in.width, in.height);
  const double scale = static_cast<double>(imgsz) / long_side;
  LetterboxInfo info;
  info.scale = static_cast<float>(scale);
  info.content_width = scaled_side(in.width, long_side, imgsz, scale);
  info.content_height = scaled_side(in.height, long_side, imgsz, scale);
  if (pad == LetterboxPad::centre) {
    info.pad_x = (imgsz - info.content_width) / 2;
    info.pad_y = (imgsz - info.content_height) / 2;
  }
  return info;
}

LetterboxInfo letterbox(ImageView in, int imgsz, MutableImageView out, LetterboxPad pad) {
  ResizeScratch scratch;
  return letterbox(in, imgsz, out, pad, scratch);
}

LetterboxInfo letterbox(ImageView in, int imgsz, MutableImageView out, LetterboxPad pad,
                        ResizeScratch& scratch, std::uint8_t fill) {
  if (out.width != imgsz || out.height != imgsz || out.pixels == nullptr) {
    throw Error("letterbox output is " + std::to_string(out.width) + "x" +
                    std::to_string(out.height) + ", expected " + std::to_string(imgsz) + "x" +
                    std::to_string(imgsz),
                "the output must be a square imgsz slot",
                "pass the batch slot for this imgsz");
  }
  const LetterboxInfo info = letterbox_info({in.width, in.height}, imgsz, pad);
  const std::size_t row = static_cast<std::size_t>(imgsz) * 3;
  // Padding rows above and below, padding columns left and right of the content.
  for (int y = 0; y < imgsz; ++y) {
    std::uint8_t* p = out.pixels + static_cast<std::size_t>(y) * row;
    if (y < info.pad_y || y >= info.pad_y + info.content_height) {
      std::memset(p, fill, row);
      continue;
    }
    std::memset(p, fill, static_cast<std::size_t>(info.pad_x) * 3);
    const int right = info.pad_x + info.content_width;
    std::memset(p + static_cast<std::size_t>(right) * 3, fill,
                static_cast<std::size_t>(imgsz - right) * 3);
  }
  // The content, resized straight into its rectangle of the output.
  resize_bilinear_window(in, info.content_width, info.content_height, false, 0, 0,
                         info.content_width, info.content_height,
                         out.pixels + static_cast<std::size_t>(info.pad_y) * row +
                             static_cast<std::size_t>(info.pad_x) * 3,
                         row, scratch);
  return info;
}

PixelBox to_letterbox(const PixelBox& box, const LetterboxInfo& info) {
  PixelBox out = box;
  out.x1 = box.x1 * info.scale + static_cast<float>(info.pad_x);
  out.x2 = box.x2 * info.scale + static_cast<float>(info.pad_x);
  out.y1 = box.y1 * info.scale + static_cast<float>(info.pad_y);
  out.y2 = box.y2 * info.scale + static_cast<float>(info.pad_y);
  return out;
}

PixelBox from_letterbox(const PixelBox& box, const LetterboxInfo& info, ImageSize original) {
  PixelBox out = box;
  const float w = static_cast<float>(original.width);
  const float h = static_cast<float>(original.height);
  out.x1 = std::clamp((box.x1 - static_cast<float>(info.pad_x)) / info.scale, 0.0f, w);
  out.x2 = std::clamp((box.x2 - static_cast<float>(info.pad_x)) / info.scale, 0.0f, w);
  out.y1 = std::clamp((box.y1 - static_cast<float>(info.pad_y)) / info.scale, 0.0f, h);
  out.y2 = std::clamp((box.y2 - static_cast<float>(info.pad_y)) / info.scale, 0.0f, h);
  return out;
}

}  // namespace libreyolo::core::data

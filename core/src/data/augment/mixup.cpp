#include "libreyolo/core/data/augment/mixup.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "libreyolo/core/data/augment/box_filter.hpp"
#include "libreyolo/core/data/augment/letterbox.hpp"
#include "libreyolo/core/data/augment/random.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

int jittered_side(int imgsz, double scale) {
  return std::max(1, static_cast<int>(std::floor(imgsz * scale + 1e-9)));
}

}  // namespace

MixupJitter random_mixup_jitter(int imgsz, double scale_min, double scale_max,
                                std::mt19937_64& rng) {
  MixupJitter j;
  j.scale = uniform(rng, scale_min, scale_max);
  j.mirror = uniform01(rng) > 0.5;
  const int side = jittered_side(imgsz, j.scale);
  if (side > imgsz) {
    j.y_offset = uniform_int(rng, 0, side - imgsz - 1);
    j.x_offset = uniform_int(rng, 0, side - imgsz - 1);
  }
  return j;
}

void mixup_yolox(ImageView other, const std::vector<PixelBox>& other_boxes,
                 const MixupJitter& jitter, MutableImageView out, std::vector<PixelBox>& boxes,
                 MixupScratch& scratch) {
  const int imgsz = out.width;
  if (out.height != imgsz) {
    throw Error("mixup output is " + std::to_string(out.width) + "x" +
                    std::to_string(out.height),
                "mixup blends into a square imgsz image", "pass the square batch slot");
  }
  // 1. The other image letterboxed (top-left, 114) to the imgsz square. Cached images already
  //    have the letterbox size: then only the padding is virtual, nothing is copied.
  const LetterboxInfo info = letterbox_info({other.width, other.height}, imgsz);
  ImageView content = other;
  if (info.content_width != other.width || info.content_height != other.height) {
    Image& resized = scratch.resized;
    resized.width = info.content_width;
    resized.height = info.content_height;
    resized.pixels.resize(static_cast<std::size_t>(resized.width) * resized.height * 3);
    resize_bilinear(other, {resized.width, resized.height, resized.pixels.data()},
                    scratch.resize);
    content = ImageView::of(resized);
  }
  const PaddedImage square{content, imgsz, imgsz, kLetterboxFill};

  // 2. That square rescaled to side x side (and mirrored), of which the crop starting at the
  //    offsets lands in the output, averaged 50/50 into it (rounded down) as it is made.
  const int side = jittered_side(imgsz, jitter.scale);
  const int inside_w = std::clamp(side - jitter.x_offset, 0, imgsz);
  const int inside_h = std::clamp(side - jitter.y_offset, 0, imgsz);
  const std::size_t row = static_cast<std::size_t>(imgsz) * 3;
  resize_bilinear_window(square, side, side, jitter.mirror, jitter.x_offset, jitter.y_offset,
                         inside_w, inside_h, out.pixels, row, WindowWrite::average,
                         scratch.resize);

  // 3. Outside the square the crop reads zeros: those pixels are halved.
  const std::size_t inside_row = static_cast<std::size_t>(inside_w) * 3;
  for (int y = 0; y < imgsz; ++y) {
    std::uint8_t* o = out.pixels + static_cast<std::size_t>(y) * row;
    for (std::size_t x = y < inside_h ? inside_row : 0; x < row; ++x) {
      o[x] = static_cast<std::uint8_t>(o[x] >> 1);
    }
  }

  // 4. The boxes: letterbox scale, then the jitter (the exact pixel ratio side / imgsz; YOLOX
  //    uses the drawn factor, up to a pixel off), mirror inside the square, crop offsets.
  const float scale = info.scale * static_cast<float>(side) / static_cast<float>(imgsz);
  const float fside = static_cast<float>(side);
  const float ox = static_cast<float>(jitter.x_offset);
  const float oy = static_cast<float>(jitter.y_offset);
  const BoxFilter keep_non_degenerate;
  for (const PixelBox& b : other_boxes) {
    PixelBox m = clip_box({b.x1 * scale, b.y1 * scale, b.x2 * scale, b.y2 * scale, b.class_id},
                          fside, fside);
    if (jitter.mirror) {
      const float x1 = fside - m.x2;
      m.x2 = fside - m.x1;
      m.x1 = x1;
    }
    m.x1 -= ox;
    m.x2 -= ox;
    m.y1 -= oy;
    m.y2 -= oy;
    m = clip_box(m, static_cast<float>(imgsz), static_cast<float>(imgsz));
    if (keep_box(m, keep_non_degenerate)) boxes.push_back(m);
  }
}

void mixup_blend(ImageView other, const std::vector<PixelBox>& other_boxes, double ratio,
                 MutableImageView out, std::vector<PixelBox>& boxes) {
  if (other.width != out.width || other.height != out.height) {
    throw Error("mixup images differ in size (" + std::to_string(other.width) + "x" +
                    std::to_string(other.height) + " vs " + std::to_string(out.width) + "x" +
                    std::to_string(out.height) + ")",
                "the blend mixes two images of the output size", "pass two imgsz squares");
  }
  constexpr int kBits = 16;
  const int w_out = static_cast<int>(std::lround(std::clamp(ratio, 0.0, 1.0) * (1 << kBits)));
  const int w_other = (1 << kBits) - w_out;
  const std::size_t n = static_cast<std::size_t>(out.width) * out.height * 3;
  for (std::size_t i = 0; i < n; ++i) {
    out.pixels[i] = static_cast<std::uint8_t>(
        (out.pixels[i] * w_out + other.pixels[i] * w_other + (1 << (kBits - 1))) >> kBits);
  }
  boxes.insert(boxes.end(), other_boxes.begin(), other_boxes.end());
}

}  // namespace libreyolo::core::data

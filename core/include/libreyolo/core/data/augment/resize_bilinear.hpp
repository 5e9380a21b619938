#pragma once
// Bilinear resize of uint8 RGB with OpenCV's INTER_LINEAR geometry (pixel centres aligned,
// edges replicated), the interpolation LibreYOLO's letterbox and mixup use, in fixed point
// with 11-bit weights. Separable: each source row that is needed is resized horizontally once
// (a gather), then output rows are a vertical blend of two such rows (a loop the compiler
// vectorises). Computes any window of the resized image, optionally mirrored, so mixup
// can produce just the crop it keeps.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

// Per-axis tables, horizontally resized source rows and a padded source row, reused between
// samples.
struct ResizeScratch {
  std::vector<std::int32_t> x_first, x_second, x_weight;
  std::vector<std::int32_t> y_first, y_second, y_weight;
  std::vector<std::int32_t> rows[2];
  std::vector<std::uint8_t> padded_row, out_row;
};

// `image` at the top-left of a width x height canvas filled with `fill` elsewhere: a
// top-left letterbox, read without copying the image into the square first.
struct PaddedImage {
  ImageView image;
  int width = 0, height = 0;
  std::uint8_t fill = 0;

  static PaddedImage of(ImageView image) { return {image, image.width, image.height, 0}; }
};

// How the window's pixels land in the destination.
enum class WindowWrite {
  replace,
  average,  // (destination + window) / 2, rounded down: YOLOX's 50/50 mixup
};

// Writes window (x0, y0, width, height) of `src` resized to full_width x full_height,
// mirrored left-right first when `mirror` is set. The window must lie inside the full size.
// Scale 1 without mirroring is a plain copy.
// The window is width x height pixels at `dst`, rows `dst_stride` bytes apart (so it can be a
// rectangle inside a larger image).
void resize_bilinear_window(const PaddedImage& src, int full_width, int full_height, bool mirror,
                            int x0, int y0, int width, int height, std::uint8_t* dst,
                            std::size_t dst_stride, WindowWrite write, ResizeScratch& scratch);

inline void resize_bilinear_window(ImageView src, int full_width, int full_height, bool mirror,
                                   int x0, int y0, int width, int height, std::uint8_t* dst,
                                   std::size_t dst_stride, ResizeScratch& scratch) {
  resize_bilinear_window(PaddedImage::of(src), full_width, full_height, mirror, x0, y0, width,
                         height, dst, dst_stride, WindowWrite::replace, scratch);
}

inline void resize_bilinear_window(ImageView src, int full_width, int full_height, bool mirror,
                                   int x0, int y0, MutableImageView window,
                                   ResizeScratch& scratch) {
  resize_bilinear_window(src, full_width, full_height, mirror, x0, y0, window.width,
                         window.height, window.pixels,
                         static_cast<std::size_t>(window.width) * 3, scratch);
}

// `src` resized to exactly dst.width x dst.height.
inline void resize_bilinear(ImageView src, MutableImageView dst, ResizeScratch& scratch) {
  resize_bilinear_window(src, dst.width, dst.height, false, 0, 0, dst, scratch);
}

}  // namespace libreyolo::core::data

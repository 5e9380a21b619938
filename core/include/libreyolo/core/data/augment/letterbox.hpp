#pragma once
// Letterbox: resize keeping the aspect ratio so the long side fits imgsz, pad with 114.
//
// LibreYOLO pads at the bottom / right (the image sits at the top-left corner) for YOLOX,
// yolo9 and RTMDet, in training (preproc) and validation (YOLOXValPreprocessor,
// YOLO9ValPreprocessor); only YOLO-NAS centres it. top_left is the default; centre is there for
// families that need it.

#include "libreyolo/core/data/augment/resize_bilinear.hpp"
#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

enum class LetterboxPad { top_left, centre };

inline constexpr std::uint8_t kLetterboxFill = 114;

// Letterboxed pixel = original pixel * scale + pad (both axes use the same scale).
struct LetterboxInfo {
  float scale = 1.0f;
  int pad_x = 0, pad_y = 0;
  int content_width = 0, content_height = 0;  // the resized image inside the square
};

// The geometry alone: scale = min(imgsz / w, imgsz / h); content size = floor(side * scale)
// (Python's int(), as LibreYOLO), at least 1, the long side exactly imgsz. Use this with an
// image's original size to map predictions back to the original pixels, even when the cache
// already resized it. Throws libreyolo::core::Error for an empty size or imgsz <= 0.
LetterboxInfo letterbox_info(ImageSize in, int imgsz, LetterboxPad pad = LetterboxPad::top_left);

// Writes `in` letterboxed into `out`, which must be imgsz x imgsz (throws Error otherwise).
// Bilinear resize (a copy when the size already fits, as for cached images).
LetterboxInfo letterbox(ImageView in, int imgsz, MutableImageView out,
                        LetterboxPad pad = LetterboxPad::top_left);
LetterboxInfo letterbox(ImageView in, int imgsz, MutableImageView out, LetterboxPad pad,
                        ResizeScratch& scratch, std::uint8_t fill = kLetterboxFill);

// Original pixels -> letterboxed pixels (not clipped).
PixelBox to_letterbox(const PixelBox& box, const LetterboxInfo& info);
// Letterboxed pixels (e.g. a prediction) -> original pixels, clipped to `original`.
PixelBox from_letterbox(const PixelBox& box, const LetterboxInfo& info, ImageSize original);

}  // namespace libreyolo::core::data

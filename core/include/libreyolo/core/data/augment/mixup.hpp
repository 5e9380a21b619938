#pragma once
// The two mixups LibreYOLO uses.
//
// YOLOX (its MosaicMixupDataset._mixup): a second labelled image, letterboxed to imgsz on 114,
// the whole square rescaled by a jitter factor from mixup_scale and mirrored half the time,
// placed at the top-left of a canvas of zeros (black, not 114: YOLOX uses np.zeros there) at
// least imgsz large, cropped to imgsz at a random offset, then averaged 50/50 with the mosaic
// (rounded down, as float 0.5a + 0.5b cast to uint8). Its boxes follow and are appended.
//
// yolo9 (YOLO9MosaicMixupDataset._mixup): out = r * out + (1 - r) * other with
// r ~ Beta(32, 32), `other` a separately augmented plain sample; boxes appended.

#include <random>
#include <vector>

#include "libreyolo/core/data/augment/resize_bilinear.hpp"
#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

struct MixupScratch {
  ResizeScratch resize;
  Image resized;  // the other image at its letterbox size, when it does not come that way
};

// YOLOX's jitter placement for one mixup.
struct MixupJitter {
  double scale = 1.0;   // the letterboxed square becomes floor(imgsz * scale) pixels a side
  bool mirror = false;
  int x_offset = 0, y_offset = 0;  // where the output's crop starts in the jittered square
};

// Draws scale ~ U(scale_min, scale_max), mirror with probability 1/2, then the crop offsets
// (y first, each randint(0, side - imgsz - 1) as YOLOX, 0 when the square is not larger).
MixupJitter random_mixup_jitter(int imgsz, double scale_min, double scale_max,
                                std::mt19937_64& rng);

// Blends `other` into `out` (imgsz x imgsz, in place) the YOLOX way and appends its boxes
// (mapped, clipped to the output, degenerate ones dropped) to `boxes`.
void mixup_yolox(ImageView other, const std::vector<PixelBox>& other_boxes,
                 const MixupJitter& jitter, MutableImageView out, std::vector<PixelBox>& boxes,
                 MixupScratch& scratch);

// out = round(ratio * out + (1 - ratio) * other), same sizes; appends other_boxes.
void mixup_blend(ImageView other, const std::vector<PixelBox>& other_boxes, double ratio,
                 MutableImageView out, std::vector<PixelBox>& boxes);

}  // namespace libreyolo::core::data

#pragma once
// The whole train-time augmentation of one sample, as LibreYOLO composes it:
//
//   with mosaic_prob: mosaic of the sample and three random others, warped into the output
//                     (YOLOX: random affine; yolo9: canvas halved), mosaic_filter;
//                     then [yolox_paste] mixup with mixup_prob (only if boxes remain)
//   otherwise:        the sample letterboxed (top-left, 114) into the output
//   HSV jitter with hsv_prob, horizontal flip with flip_prob (on the letterboxed content only,
//   so padding stays 114 at the right/bottom, as LibreYOLO applies them before padding)
//   final_filter
//   mosaic samples, [beta_blend] mixup with mixup_prob: blend with a plain-augmented random
//   sample, boxes appended.
//
// Every random choice comes from `rng`: the same seed gives the same bytes and boxes.

#include <cstddef>
#include <random>
#include <vector>

#include "libreyolo/core/data/augment/augment_params.hpp"
#include "libreyolo/core/data/augment/mixup.hpp"
#include "libreyolo/core/data/augment/resize_bilinear.hpp"
#include "libreyolo/core/data/augment/warp_affine.hpp"
#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

// Where augmentation gets dataset images from (the loader wraps its ImageSource and labels).
class AugmentSource {
 public:
  static constexpr int kSlots = 5;  // 0..3 mosaic tiles, 4 the mixup image

  virtual ~AugmentSource() = default;
  virtual std::size_t size() const = 0;
  // Image `index` (RGB HWC uint8; normally long side imgsz, as the cache stores it) and its
  // boxes in its pixels. The view must stay valid until sample() is called again with the same
  // `slot`: up to kSlots views are in use at once. May throw core::Error.
  virtual SampleView sample(std::size_t index, int slot) = 0;
};

// Buffers reused from sample to sample; one per loader worker.
struct AugmentScratch {
  WarpScratch warp;
  ResizeScratch resize;
  MixupScratch mixup;
  Image tiles[4];  // mosaic tiles rescaled when a source hands over another size
  Image second;    // beta_blend's second sample
  std::vector<PixelBox> canvas_boxes, second_boxes;
};

// Writes the augmented sample `index` into `out` (exactly imgsz x imgsz) and its boxes (output
// pixels, clipped, filtered) into `boxes`. Throws core::Error for a wrong output size, invalid
// params or an empty source.
void train_augment(AugmentSource& source, std::size_t index, const AugmentParams& params,
                   std::mt19937_64& rng, AugmentScratch& scratch, MutableImageView out,
                   std::vector<PixelBox>& boxes);

inline std::vector<PixelBox> train_augment(AugmentSource& source, std::size_t index,
                                           const AugmentParams& params, std::mt19937_64& rng,
                                           AugmentScratch& scratch, MutableImageView out) {
  std::vector<PixelBox> boxes;
  train_augment(source, index, params, rng, scratch, out, boxes);
  return boxes;
}

// The non-mosaic path on its own: letterbox, HSV, flip, final filter (LibreYOLO's
// TrainTransform; also the second image of beta_blend mixup).
void plain_augment(const SampleView& sample, const AugmentParams& params, std::mt19937_64& rng,
                   AugmentScratch& scratch, MutableImageView out, std::vector<PixelBox>& boxes);

}  // namespace libreyolo::core::data

#pragma once
// torchvision.transforms.v2.RandomIoUCrop (SSD's IoU-constrained crop), applied with
// probability `prob` (D-FINE wraps it in RandomApply(p = 0.8)).
//
// The draw, torchvision's _get_params with float32 geometry:
//   U < prob, else no crop (RandomApply)
//   repeat: an option drawn uniformly from sampler_options; an option >= 1 means no crop;
//     up to `trials` times:
//       (rw, rh) = min_scale + (max_scale - min_scale) * (U, U); new size int(w * rw) x int(h * rh)
//       the aspect new_w / new_h must lie in [min_aspect_ratio, max_aspect_ratio]
//       (left, top) = (int((w - new_w) * U), int((h - new_h) * U)); an empty crop is retried
//       some box centre must lie strictly inside the crop, and the best IoU of those boxes
//       with the crop must be >= the option: then that crop is taken.
// The apply, torchvision's _transform: the image cropped; boxes shifted and clamped to the
// crop; boxes whose centre was outside set to (0, 0, 0, 0), for SanitizeBoxes to drop.
//
// Where we differ, only where torchvision cannot go on: a trial whose crop height is 0
// (torchvision divides by it and raises) is retried; after 1000 option draws without a crop
// (torchvision loops forever: possible only when no option is >= 1) there is no crop; an image
// without boxes gets no crop at once (torchvision reaches the same after burning draws until it
// picks an option >= 1). skip_without_boxes only decides whether the prob draw is made.

#include <cstddef>
#include <random>
#include <vector>

#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/data/image/sample.hpp"
#include "libreyolo/sdk/augmentation.hpp"

namespace libreyolo::core::data {

struct IoUCropParams {
  bool applied = false;  // false: the sample stays as it is
  int left = 0, top = 0, width = 0, height = 0;
  double min_iou = 0.0;  // the option the crop satisfies (for tests and logs)
};

// Throws libreyolo::core::Error for empty sampler_options, trials < 1, 0 >= min_scale or
// min_scale > max_scale, or min_aspect_ratio > max_aspect_ratio.
IoUCropParams draw_iou_crop(const sdk::augment::IoUCrop& config, ImageSize image,
                            const std::vector<PixelBox>& boxes, std::mt19937_64& rng);

// torchvision's centre test: the box centre (float32) strictly inside the crop.
bool centre_inside(const PixelBox& box, int left, int top, int right, int bottom);

// torchvision's box_iou of one box with the crop rectangle, in float32 (NaN for an empty union).
float iou_with_crop(const PixelBox& box, int left, int top, int right, int bottom);

// Writes the crop into `out` (its buffer is reused) and maps `boxes`. When not applied, `out`
// becomes a copy of `image` and the boxes stay.
void apply_iou_crop(ImageView image, const IoUCropParams& params, Image& out,
                    std::vector<PixelBox>& boxes);

}  // namespace libreyolo::core::data

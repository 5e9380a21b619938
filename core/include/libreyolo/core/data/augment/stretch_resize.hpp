#pragma once
// torchvision.transforms.v2.Resize((height, width), antialias=...) on a uint8 RGB image and its
// boxes: the image resampled to the output's size per axis (the aspect ratio is not kept) by
// interpolate_bilinear.hpp, the boxes scaled per axis by new / old size, as float32 (torchvision
// multiplies them by a float32 ratio tensor and does not clamp them).
//
// Nothing random: no draw. An image already at the output's size is copied and its boxes stay.

#include <vector>

#include "libreyolo/core/data/augment/interpolate_bilinear.hpp"
#include "libreyolo/core/data/image/sample.hpp"
#include "libreyolo/sdk/augmentation.hpp"

namespace libreyolo::core::data {

// Resizes `image` into `out` (out's size is the target, e.g. an imgsz x imgsz batch slot) and
// scales `boxes`.
void stretch_resize(ImageView image, const sdk::augment::StretchResize& config,
                    MutableImageView out, std::vector<PixelBox>& boxes,
                    InterpolateScratch& scratch);

}  // namespace libreyolo::core::data

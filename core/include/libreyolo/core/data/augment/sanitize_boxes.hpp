#pragma once
// torchvision.transforms.v2.SanitizeBoundingBoxes for XYXY pixel boxes (torchvision >= 0.20,
// which added min_area). A box stays only if, in float32 as torchvision computes it:
//   width >= min_size and height >= min_size   (width = x2 - x1, height = y2 - y1)
//   width * height >= min_area
//   every coordinate >= 0, x1 and x2 <= the canvas width, y1 and y2 <= its height
// (so NaN boxes go too). The order is kept; class ids travel with their boxes, as the labels do
// in torchvision. This is what removes the boxes RandomIoUCrop zeroes (iou_crop.hpp).

#include <vector>

#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/data/image/sample.hpp"
#include "libreyolo/sdk/augmentation.hpp"

namespace libreyolo::core::data {

// torchvision's default min_area: sdk::augment::SanitizeBoxes has no field for it.
inline constexpr float kSanitizeMinArea = 1.0f;

bool box_is_sane(const PixelBox& box, ImageSize canvas, float min_size, float min_area);

void sanitize_boxes(std::vector<PixelBox>& boxes, ImageSize canvas,
                    const sdk::augment::SanitizeBoxes& config, float min_area = kSanitizeMinArea);

}  // namespace libreyolo::core::data

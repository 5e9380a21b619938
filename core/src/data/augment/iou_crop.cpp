#include "libreyolo/core/data/augment/iou_crop.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "libreyolo/core/data/augment/random.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

// torchvision's `while True`, bounded: with the default options (one in seven means "no
// crop") 1000 option draws without an answer has probability (6/7)^1000, about 1e-67.
constexpr int kMaxOptionDraws = 1000;

void refuse(const std::string& what, const std::string& why, const std::string& todo) {
  throw Error("IoU crop: " + what, why, todo);
}

void check_config(const sdk::augment::IoUCrop& config) {
  if (config.sampler_options.empty()) {
    refuse("no sampler options", "each round draws its minimum IoU from sampler_options",
           "list at least one option (1.0 means no crop)");
  }
  if (config.trials < 1) {
    refuse("trials is " + std::to_string(config.trials), "each option gets `trials` crops",
           "set trials to at least 1");
  }
  if (!(config.min_scale > 0.0 && config.min_scale <= config.max_scale &&
        config.max_scale <= 1.0)) {
    refuse("scale range (" + std::to_string(config.min_scale) + ", " +
               std::to_string(config.max_scale) + ") is not usable",
           "crop sides are min_scale to max_scale times the image sides, inside the image",
           "use 0 < min_scale <= max_scale <= 1");
  }
  if (!(config.min_aspect_ratio <= config.max_aspect_ratio)) {
    refuse("aspect ratio range is empty", "min_aspect_ratio is above max_aspect_ratio",
           "swap them");
  }
}

struct Crop {
  int left = 0, top = 0, right = 0, bottom = 0;
};

// One of torchvision's trials: a crop of the right size, aspect and area, or none.
bool draw_crop_rectangle(const sdk::augment::IoUCrop& config, ImageSize image, std::mt19937_64& rng,
                         Crop& crop) {
  // min_scale + (max_scale - min_scale) * torch.rand(2), float32.
  const float span = static_cast<float>(config.max_scale - config.min_scale);
  const float low = static_cast<float>(config.min_scale);
  const float scaled_w = span * uniform01_f32(rng);
  const float scaled_h = span * uniform01_f32(rng);
  const float rw = low + scaled_w;
  const float rh = low + scaled_h;
  const int new_w = static_cast<int>(static_cast<float>(image.width) * rw);
  const int new_h = static_cast<int>(static_cast<float>(image.height) * rh);
  if (new_h == 0) return false;  // torchvision raises here (new_w / new_h)
  const double aspect = static_cast<double>(new_w) / new_h;
  if (!(config.min_aspect_ratio <= aspect && aspect <= config.max_aspect_ratio)) return false;
  const float u_left = uniform01_f32(rng);
  const float u_top = uniform01_f32(rng);
  crop.left = static_cast<int>(static_cast<float>(image.width - new_w) * u_left);
  crop.top = static_cast<int>(static_cast<float>(image.height - new_h) * u_top);
  crop.right = crop.left + new_w;
  crop.bottom = crop.top + new_h;
  return crop.left != crop.right && crop.top != crop.bottom;
}

// Some box has its centre inside and the best IoU among those is >= the option. torchvision
// takes the max of a float32 tensor (NaN wins) and compares it with the option in float32.
bool crop_meets(const std::vector<PixelBox>& boxes, const Crop& c, double min_iou) {
  bool any_inside = false, nan = false;
  float best = 0.0f;
  for (const PixelBox& box : boxes) {
    if (!centre_inside(box, c.left, c.top, c.right, c.bottom)) continue;
    any_inside = true;
    const float iou = iou_with_crop(box, c.left, c.top, c.right, c.bottom);
    nan = nan || std::isnan(iou);
    best = std::max(best, iou);
  }
  if (!any_inside) return false;
  return nan || !(best < static_cast<float>(min_iou));
}

}  // namespace

bool centre_inside(const PixelBox& box, int left, int top, int right, int bottom) {
  const float cx = 0.5f * (box.x1 + box.x2);
  const float cy = 0.5f * (box.y1 + box.y2);
  return static_cast<float>(left) < cx && cx < static_cast<float>(right) &&
         static_cast<float>(top) < cy && cy < static_cast<float>(bottom);
}

float iou_with_crop(const PixelBox& box, int left, int top, int right, int bottom) {
  const float l = static_cast<float>(left), t = static_cast<float>(top);
  const float r = static_cast<float>(right), b = static_cast<float>(bottom);
  const float box_area = (box.x2 - box.x1) * (box.y2 - box.y1);
  const float crop_area = (r - l) * (b - t);
  const float w = std::max(std::min(box.x2, r) - std::max(box.x1, l), 0.0f);
  const float h = std::max(std::min(box.y2, b) - std::max(box.y1, t), 0.0f);
  const float inter = w * h;
  const float both = box_area + crop_area;
  return inter / (both - inter);
}

IoUCropParams draw_iou_crop(const sdk::augment::IoUCrop& config, ImageSize image,
                            const std::vector<PixelBox>& boxes, std::mt19937_64& rng) {
  check_config(config);
  IoUCropParams params;
  if (config.skip_without_boxes && boxes.empty()) return params;
  // RandomApply: skipped when torch.rand(1) >= p.
  if (!(uniform01_f32(rng) < static_cast<float>(config.prob))) return params;
  if (boxes.empty()) return params;  // no centre can ever be inside: torchvision ends uncropped
  const int options = static_cast<int>(config.sampler_options.size());
  for (int round = 0; round < kMaxOptionDraws; ++round) {
    const double min_iou =
        config.sampler_options[static_cast<std::size_t>(uniform_int(rng, 0, options - 1))];
    if (min_iou >= 1.0) return params;  // the "leave as is" option
    for (int trial = 0; trial < config.trials; ++trial) {
      Crop crop;
      if (!draw_crop_rectangle(config, image, rng, crop)) continue;
      if (!crop_meets(boxes, crop, min_iou)) continue;
      params.applied = true;
      params.left = crop.left;
      params.top = crop.top;
      params.width = crop.right - crop.left;
      params.height = crop.bottom - crop.top;
      params.min_iou = min_iou;
      return params;
    }
  }
  return params;
}

void apply_iou_crop(ImageView image, const IoUCropParams& params, Image& out,
                    std::vector<PixelBox>& boxes) {
  if (params.applied &&
      !(params.left >= 0 && params.top >= 0 && params.width > 0 && params.height > 0 &&
        params.left + params.width <= image.width && params.top + params.height <= image.height)) {
    refuse("the crop " + std::to_string(params.width) + "x" + std::to_string(params.height) +
               " at (" + std::to_string(params.left) + ", " + std::to_string(params.top) +
               ") is not inside the " + std::to_string(image.width) + "x" +
               std::to_string(image.height) + " image",
           "the parameters were not drawn for this image", "draw them with draw_iou_crop");
  }
  const int width = params.applied ? params.width : image.width;
  const int height = params.applied ? params.height : image.height;
  const int left = params.applied ? params.left : 0;
  const int top = params.applied ? params.top : 0;
  out.width = width;
  out.height = height;
  out.pixels.resize(static_cast<std::size_t>(width) * height * Image::kChannels);
  const std::size_t image_row = static_cast<std::size_t>(image.width) * Image::kChannels;
  for (int y = 0; y < height; ++y) {
    std::memcpy(out.pixel(0, y),
                image.pixels + static_cast<std::size_t>(y + top) * image_row +
                    static_cast<std::size_t>(left) * Image::kChannels,
                out.row_bytes());
  }
  if (!params.applied) return;
  const int right = left + width, bottom = top + height;
  const float dx = static_cast<float>(left), dy = static_cast<float>(top);
  const float w = static_cast<float>(width), h = static_cast<float>(height);
  for (PixelBox& b : boxes) {
    if (!centre_inside(b, left, top, right, bottom)) {
      b.x1 = b.y1 = b.x2 = b.y2 = 0.0f;  // torchvision's "mark as degenerate"
      continue;
    }
    // crop_bounding_boxes: shift in float32, clamp to the crop.
    b.x1 = std::clamp(b.x1 - dx, 0.0f, w);
    b.x2 = std::clamp(b.x2 - dx, 0.0f, w);
    b.y1 = std::clamp(b.y1 - dy, 0.0f, h);
    b.y2 = std::clamp(b.y2 - dy, 0.0f, h);
  }
}

}  // namespace libreyolo::core::data

#include "libreyolo/core/data/augment/train_augment.hpp"

#include <algorithm>
#include <string>

#include "libreyolo/core/data/augment/box_filter.hpp"
#include "libreyolo/core/data/augment/flip.hpp"
#include "libreyolo/core/data/augment/hsv.hpp"
#include "libreyolo/core/data/augment/letterbox.hpp"
#include "libreyolo/core/data/augment/mosaic.hpp"
#include "libreyolo/core/data/augment/random.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

void check_output(const AugmentParams& params, MutableImageView out) {
  if (out.width != params.imgsz || out.height != params.imgsz || out.pixels == nullptr) {
    throw Error("augmentation output is " + std::to_string(out.width) + "x" +
                    std::to_string(out.height) + ", expected " + std::to_string(params.imgsz) +
                    "x" + std::to_string(params.imgsz),
                "each sample is written into one imgsz x imgsz slot of the batch buffer",
                "allocate the batch with the same imgsz as the augmentation params");
  }
}

int random_index(AugmentSource& source, std::mt19937_64& rng) {
  return uniform_int(rng, 0, static_cast<int>(source.size()) - 1);
}

// HSV then flip over the content rectangle, as LibreYOLO's TrainTransform.
void colour_and_flip(const AugmentParams& p, std::mt19937_64& rng, MutableImageView out,
                     int content_width, int content_height, std::vector<PixelBox>& boxes) {
  if (chance(rng, p.hsv_prob)) {
    apply_hsv(out, content_width, content_height, random_hsv_delta(p.hsv, rng));
  }
  if (chance(rng, p.flip_prob)) flip_horizontal(out, content_width, content_height, boxes);
}

// A mosaic tile at the scale LibreYOLO would give it: min(imgsz / h, imgsz / w), capped at 1
// without upscaling. Cached images already have long side imgsz: returned as they are.
ImageView mosaic_tile(const SampleView& s, const AugmentParams& p, Image& scratch,
                      ResizeScratch& resize, float& scale) {
  scale = 1.0f;
  const int long_side = std::max(s.image.width, s.image.height);
  if (long_side == p.imgsz || (long_side < p.imgsz && !p.mosaic_upscale_tiles)) return s.image;
  const LetterboxInfo info = letterbox_info({s.image.width, s.image.height}, p.imgsz);
  scratch.width = info.content_width;
  scratch.height = info.content_height;
  scratch.pixels.resize(static_cast<std::size_t>(scratch.width) * scratch.height * 3);
  resize_bilinear(s.image, {scratch.width, scratch.height, scratch.pixels.data()}, resize);
  scale = info.scale;
  return ImageView::of(scratch);
}

}  // namespace

void plain_augment(const SampleView& sample, const AugmentParams& p, std::mt19937_64& rng,
                   AugmentScratch& scratch, MutableImageView out, std::vector<PixelBox>& boxes) {
  check_output(p, out);
  const LetterboxInfo info = letterbox(sample.image, p.imgsz, out, p.letterbox_pad, scratch.resize);
  boxes.clear();
  for (const PixelBox& b : sample.boxes) boxes.push_back(to_letterbox(b, info));
  // With centred padding the content is not at the origin; HSV and flip then cover the whole
  // square (only YOLO-NAS-style families centre, and they do not use this recipe).
  const bool top_left = p.letterbox_pad == LetterboxPad::top_left;
  colour_and_flip(p, rng, out, top_left ? info.content_width : p.imgsz,
                  top_left ? info.content_height : p.imgsz, boxes);
  clip_and_filter(boxes, static_cast<float>(p.imgsz), static_cast<float>(p.imgsz),
                  p.final_filter);
}

void train_augment(AugmentSource& source, std::size_t index, const AugmentParams& p,
                   std::mt19937_64& rng, AugmentScratch& scratch, MutableImageView out,
                   std::vector<PixelBox>& boxes) {
  p.validate();
  check_output(p, out);
  if (source.size() == 0) {
    throw Error("cannot augment: the dataset has no images", "the image source is empty",
                "check the dataset path and that its images were found");
  }

  if (!chance(rng, p.mosaic_prob)) {
    plain_augment(source.sample(index, 0), p, rng, scratch, out, boxes);
    return;
  }

  // Mosaic: the sample and three random others around a random centre.
  const MosaicCentre centre =
      random_mosaic_centre(p.imgsz, p.mosaic_centre_min, p.mosaic_centre_max, rng);
  std::size_t indices[4] = {index, 0, 0, 0};
  for (int i = 1; i < 4; ++i) indices[i] = static_cast<std::size_t>(random_index(source, rng));
  ImageView tiles[4];
  SampleView samples[4];
  float scales[4];
  for (int i = 0; i < 4; ++i) {
    samples[i] = source.sample(indices[i], i);
    tiles[i] = mosaic_tile(samples[i], p, scratch.tiles[i], scratch.resize, scales[i]);
  }
  const TiledCanvas canvas = mosaic_canvas(p.imgsz, centre, tiles);
  scratch.canvas_boxes.clear();
  for (int i = 0; i < 4; ++i) {
    append_mosaic_boxes(canvas, i, samples[i].boxes, scales[i], p.final_filter,
                        scratch.canvas_boxes);
  }
  const Affine2x3 m = p.mosaic_warp == MosaicWarp::random_affine
                          ? random_affine_matrix(p.affine, p.imgsz, p.imgsz, rng)
                          : mosaic_half_resize();
  mosaic_warp(canvas, scratch.canvas_boxes, m, p.mosaic_filter, out, scratch.warp, boxes);

  // YOLOX mixup, on the warped mosaic before colour and flip; needs a labelled second image.
  const bool mixup = chance(rng, p.mixup_prob);
  if (mixup && p.mixup_style == MixupStyle::yolox_paste && !boxes.empty()) {
    const MixupJitter jitter =
        random_mixup_jitter(p.imgsz, p.mixup_scale_min, p.mixup_scale_max, rng);
    for (int attempt = 0; attempt < p.mixup_attempts; ++attempt) {
      const SampleView other =
          source.sample(static_cast<std::size_t>(random_index(source, rng)), 4);
      if (other.boxes.empty()) continue;
      mixup_yolox(other.image, other.boxes, jitter, out, boxes, scratch.mixup);
      break;
    }
  }

  colour_and_flip(p, rng, out, p.imgsz, p.imgsz, boxes);
  clip_and_filter(boxes, static_cast<float>(p.imgsz), static_cast<float>(p.imgsz),
                  p.final_filter);

  // yolo9 mixup: blend with another sample that went through the plain path.
  if (mixup && p.mixup_style == MixupStyle::beta_blend && !boxes.empty()) {
    const double ratio = beta_sample(rng, p.mixup_beta, p.mixup_beta);
    const SampleView other = source.sample(static_cast<std::size_t>(random_index(source, rng)), 4);
    Image& second = scratch.second;
    second.width = second.height = p.imgsz;
    second.pixels.resize(static_cast<std::size_t>(p.imgsz) * p.imgsz * 3);
    plain_augment(other, p, rng, scratch, {p.imgsz, p.imgsz, second.pixels.data()},
                  scratch.second_boxes);
    mixup_blend(ImageView::of(second), scratch.second_boxes, ratio, out, boxes);
  }
}

}  // namespace libreyolo::core::data

// The YOLO-style stages of a pipeline: Mosaic and the two Mixups (LibreYOLO's YOLOX and YOLOv9
// compositions, whose random draws these reproduce in order).

#include <algorithm>

#include "libreyolo/core/data/augment/letterbox.hpp"
#include "libreyolo/core/data/augment/mosaic.hpp"
#include "libreyolo/core/data/augment/random.hpp"
#include "pipeline_stages.hpp"

namespace libreyolo::core::data::pipeline {
namespace {

// Boxes of a mosaic tile narrower or shorter than this (tile pixels) are dropped when they
// reach the canvas: a box clipped to a line at the canvas edge would otherwise become a box
// around nothing under rotation (mosaic.hpp says why).
constexpr float kTileBoxMinSide = 1.0f;
// YOLOX's mixup looks this many times for a labelled image to paste.
constexpr int kPasteAttempts = 16;

int random_index(AugmentSource& source, std::mt19937_64& rng) {
  return uniform_int(rng, 0, static_cast<int>(source.size()) - 1);
}

// A mosaic tile at the scale LibreYOLO gives it: min(imgsz / h, imgsz / w), capped at 1
// without upscaling. Cached images already have long side imgsz: returned as they are.
ImageView mosaic_tile(const SampleView& s, int imgsz, bool upscale, Image& scratch, ResizeScratch& resize,
                      float& scale) {
  scale = 1.0f;
  const int long_side = std::max(s.image.width, s.image.height);
  if (long_side == imgsz || (long_side < imgsz && !upscale)) return s.image;
  const LetterboxInfo info = letterbox_info({s.image.width, s.image.height}, imgsz);
  scratch.width = info.content_width;
  scratch.height = info.content_height;
  scratch.pixels.resize(static_cast<std::size_t>(scratch.width) * scratch.height * 3);
  resize_bilinear(s.image, {scratch.width, scratch.height, scratch.pixels.data()}, resize);
  scale = info.scale;
  return ImageView::of(scratch);
}

Affine2x3 mosaic_matrix(const sdk::augment::Mosaic& t, int imgsz, std::mt19937_64& rng) {
  if (t.warp == sdk::augment::Mosaic::Warp::half_resize) return mosaic_half_resize();
  const AffineRange range{t.degrees, t.translate, t.scale.low, t.scale.high, t.shear};
  return random_affine_matrix(range, imgsz, imgsz, rng);
}

}  // namespace

void apply(const sdk::augment::Mosaic& t, StageContext& c, WorkingSample& s) {
  if (!chance(c.rng, t.prob)) return;
  // The sample and three random others around a random centre.
  const MosaicCentre centre = random_mosaic_centre(c.imgsz, t.centre.low, t.centre.high, c.rng);
  std::size_t indices[4] = {c.index, 0, 0, 0};
  for (int i = 1; i < 4; ++i) indices[i] = static_cast<std::size_t>(random_index(c.source, c.rng));
  ImageView tiles[4];
  SampleView samples[4];
  float scales[4];
  for (int i = 0; i < 4; ++i) {
    samples[i] = c.source.sample(indices[i], i);
    tiles[i] = mosaic_tile(samples[i], c.imgsz, t.upscale_tiles, c.scratch.tiles[i], c.scratch.resize, scales[i]);
  }
  const TiledCanvas canvas = mosaic_canvas(c.imgsz, centre, tiles);
  auto& canvas_boxes = c.scratch.canvas_boxes;
  canvas_boxes.clear();
  for (int i = 0; i < 4; ++i) {
    append_mosaic_boxes(canvas, i, samples[i].boxes, scales[i], BoxFilter{kTileBoxMinSide, 0, 0}, canvas_boxes);
  }
  const Affine2x3 m = mosaic_matrix(t, c.imgsz, c.rng);
  const BoxFilter after_warp{static_cast<float>(t.min_box_side), 0, 0};
  mosaic_warp(canvas, canvas_boxes, m, after_warp, c.out, c.scratch.warp, s.replace());
  s.placed_at_output(c.imgsz, c.imgsz);
  s.made_by_mosaic = true;
}

void apply(const sdk::augment::Mixup& t, StageContext& c, WorkingSample& s) {
  if (!s.made_by_mosaic) return;  // LibreYOLO mixes only mosaic samples
  if (!chance(c.rng, t.prob)) return;
  if (t.style == sdk::augment::Mixup::Style::beta_blend) {
    s.blend_pending = &t;  // blended once the rest of the pipeline has run
    return;
  }
  // YOLOX's paste, on the warped mosaic before colour and flip; needs a labelled second image.
  if (s.boxes().empty()) return;
  const MixupJitter jitter = random_mixup_jitter(c.imgsz, t.scale.low, t.scale.high, c.rng);
  for (int attempt = 0; attempt < kPasteAttempts; ++attempt) {
    const SampleView other = c.source.sample(static_cast<std::size_t>(random_index(c.source, c.rng)), 4);
    if (other.boxes.empty()) continue;
    mixup_yolox(other.image, other.boxes, jitter, c.out, s.boxes(), c.scratch.mixup);
    break;
  }
}

void finish_beta_blend(const std::vector<sdk::augment::Transform>& transforms, StageContext& c, WorkingSample& s) {
  const sdk::augment::Mixup* blend = s.blend_pending;
  if (!blend || s.boxes().empty()) return;
  const double ratio = beta_sample(c.rng, blend->beta, blend->beta);
  const SampleView other = c.source.sample(static_cast<std::size_t>(random_index(c.source, c.rng)), 4);
  Image& second = c.scratch.second;
  second.width = second.height = c.imgsz;
  second.pixels.resize(static_cast<std::size_t>(c.imgsz) * c.imgsz * 3);
  StageContext second_context{c.source, c.index, c.imgsz, c.rng, c.scratch, {c.imgsz, c.imgsz, second.pixels.data()}};
  WorkingSample plain(second_context, other, c.scratch.second_boxes);
  run_transforms(transforms, second_context, plain, /*plain=*/true);
  mixup_blend(ImageView::of(second), c.scratch.second_boxes, ratio, c.out, s.boxes());
}

}  // namespace libreyolo::core::data::pipeline

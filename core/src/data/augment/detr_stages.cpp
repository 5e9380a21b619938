// The DETR-style stages (torchvision v2 semantics; the transforms themselves are in
// photometric_distort.cpp, zoom_out.cpp, iou_crop.cpp, sanitize_boxes.cpp, stretch_resize.cpp).
// Their draws skip images without boxes themselves when the transform says so.

#include "libreyolo/core/data/augment/iou_crop.hpp"
#include "libreyolo/core/data/augment/photometric_distort.hpp"
#include "libreyolo/core/data/augment/sanitize_boxes.hpp"
#include "libreyolo/core/data/augment/stretch_resize.hpp"
#include "libreyolo/core/data/augment/zoom_out.hpp"
#include "pipeline_stages.hpp"

namespace libreyolo::core::data::pipeline {

void apply(const sdk::augment::PhotometricDistort& t, StageContext& c, WorkingSample& s) {
  const auto params = draw_photometric_distort(t, s.boxes().size(), c.rng);
  if (params.changes_nothing()) return;
  apply_photometric_distort(s.writable(), params, c.scratch.color);
}

void apply(const sdk::augment::ZoomOut& t, StageContext& c, WorkingSample& s) {
  const ImageView image = s.pixels();
  const auto params = draw_zoom_out(t, {image.width, image.height}, s.boxes().size(), c.rng);
  if (!params.applied) return;
  Image& canvas = s.spare();
  apply_zoom_out(image, params, canvas, s.boxes());
  s.placed_in(canvas);
}

void apply(const sdk::augment::IoUCrop& t, StageContext& c, WorkingSample& s) {
  const ImageView image = s.pixels();
  const auto params = draw_iou_crop(t, {image.width, image.height}, s.boxes(), c.rng);
  if (!params.applied) return;
  Image& crop = s.spare();
  apply_iou_crop(image, params, crop, s.boxes());
  s.placed_in(crop);
}

void apply(const sdk::augment::SanitizeBoxes& t, StageContext&, WorkingSample& s) {
  const ImageView image = s.pixels();
  sanitize_boxes(s.boxes(), {image.width, image.height}, t);
}

void apply(const sdk::augment::StretchResize& t, StageContext& c, WorkingSample& s) {
  if (s.at_output()) return;  // already imgsz x imgsz, in the slot
  stretch_resize(s.pixels(), t, c.out, s.boxes(), c.scratch.interpolate);
  s.placed_at_output(c.imgsz, c.imgsz);
}

}  // namespace libreyolo::core::data::pipeline

// The stages every pipeline shares: letterbox, colour jitter, flip, box filters, label cap.

#include <algorithm>

#include "libreyolo/core/data/augment/box_filter.hpp"
#include "libreyolo/core/data/augment/flip.hpp"
#include "libreyolo/core/data/augment/hsv.hpp"
#include "libreyolo/core/data/augment/letterbox.hpp"
#include "libreyolo/core/data/augment/random.hpp"
#include "pipeline_stages.hpp"

namespace libreyolo::core::data::pipeline {

void apply(const sdk::augment::Letterbox& t, StageContext& c, WorkingSample& s) {
  if (s.at_output()) return;  // a mosaic already made the square
  const bool top_left = t.placement == sdk::augment::Letterbox::Placement::top_left;
  const ImageView image = s.pixels();
  const LetterboxInfo info = letterbox(image, c.imgsz, c.out, top_left ? LetterboxPad::top_left : LetterboxPad::centre,
                                       c.scratch.resize, static_cast<std::uint8_t>(t.pad_value));
  auto& boxes = s.boxes();
  for (PixelBox& box : boxes) box = to_letterbox(box, info);
  // With centred padding the image is not at the origin: colour and flip then cover the whole
  // square (only YOLO-NAS-style families centre).
  s.placed_at_output(top_left ? info.content_width : c.imgsz, top_left ? info.content_height : c.imgsz);
}

void apply(const sdk::augment::Hsv& t, StageContext& c, WorkingSample& s) {
  if (!chance(c.rng, t.prob)) return;
  const HsvGains gains{static_cast<float>(t.hue_gain), static_cast<float>(t.saturation_gain),
                       static_cast<float>(t.value_gain)};
  const HsvDelta delta = random_hsv_delta(gains, c.rng);
  apply_hsv(s.writable(), s.content_width(), s.content_height(), delta);
}

void apply(const sdk::augment::Flip& t, StageContext& c, WorkingSample& s) {
  if (!chance(c.rng, t.prob)) return;
  const MutableImageView image = s.writable();
  flip_horizontal(image, s.content_width(), s.content_height(), s.boxes());
}

void apply(const sdk::augment::FilterBoxes& t, StageContext&, WorkingSample& s) {
  const ImageView image = s.pixels();
  clip_and_filter(s.boxes(), static_cast<float>(image.width), static_cast<float>(image.height),
                  BoxFilter{static_cast<float>(t.min_side), 0, 0});
}

void apply(const sdk::augment::MaxLabels& t, StageContext&, WorkingSample& s) {
  auto& boxes = s.boxes();
  if (boxes.size() > static_cast<std::size_t>(t.count)) boxes.resize(static_cast<std::size_t>(t.count));
}

}  // namespace libreyolo::core::data::pipeline

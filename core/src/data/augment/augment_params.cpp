#include "libreyolo/core/data/augment/augment_params.hpp"

#include <string>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

void check(bool ok, const std::string& name, double value, const std::string& rule) {
  if (ok) return;
  throw Error("invalid augmentation option " + name + "=" + std::to_string(value),
              "it must be " + rule, "fix " + name + " in the recipe, cfg file or command line");
}

void check_probability(const std::string& name, double p) {
  check(p >= 0.0 && p <= 1.0, name, p, "a probability in [0, 1]");
}

}  // namespace

AugmentParams AugmentParams::yolox(int imgsz) {
  AugmentParams p;  // the defaults are YOLOX's
  p.imgsz = imgsz;
  return p;
}

AugmentParams AugmentParams::yolo9(int imgsz) {
  AugmentParams p;
  p.imgsz = imgsz;
  p.mosaic_upscale_tiles = false;
  p.mosaic_warp = MosaicWarp::half_resize;
  // LibreYOLO's YOLO9Config sets these, but its mosaic never applies an affine; kept so a user
  // who switches mosaic_warp to random_affine starts from yolo9's configured ranges.
  p.affine.degrees = 0.0;
  p.affine.translate = 0.1;
  p.affine.scale_min = 0.5;
  p.affine.scale_max = 1.5;
  p.affine.shear = 0.0;
  p.mosaic_filter.min_size = 2.0f;
  p.mixup_prob = 0.0f;
  p.mixup_style = MixupStyle::beta_blend;
  return p;
}

AugmentParams AugmentParams::without_mosaic() const {
  AugmentParams p = *this;
  p.mosaic_prob = 0.0f;
  p.mixup_prob = 0.0f;
  return p;
}

void AugmentParams::validate() const {
  check(imgsz > 0 && imgsz <= 16384, "imgsz", imgsz, "between 1 and 16384");
  check_probability("mosaic_prob", mosaic_prob);
  check_probability("mixup_prob", mixup_prob);
  check_probability("hsv_prob", hsv_prob);
  check_probability("flip_prob", flip_prob);
  check(mosaic_centre_min >= 0.0f && mosaic_centre_max <= 2.0f &&
            mosaic_centre_min <= mosaic_centre_max,
        "mosaic_centre_min", mosaic_centre_min, "<= mosaic_centre_max, both within [0, 2]");
  check(affine.scale_min > 0.0 && affine.scale_max >= affine.scale_min, "mosaic_scale",
        affine.scale_min, "0 < min <= max");
  check(affine.shear > -89.0 && affine.shear < 89.0, "shear", affine.shear,
        "an angle in degrees well below 90");
  check(mixup_scale_min > 0.0f && mixup_scale_max >= mixup_scale_min, "mixup_scale",
        mixup_scale_min, "0 < min <= max");
  check(mixup_beta > 0.0f, "mixup_beta", mixup_beta, "positive");
  check(hsv.h >= 0.0f && hsv.s >= 0.0f && hsv.v >= 0.0f, "hsv gain", hsv.h, "non-negative");
}

}  // namespace libreyolo::core::data

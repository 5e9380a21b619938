#include "libreyolo/core/trainer/augment_settings.hpp"

namespace libreyolo::core::trainer {

data::AugmentParams augment_params_for(const TrainConfig& c, const sdk::AugmentStyle& style) {
  // The preset fixes what the options do not cover (mosaic centre range, filters, letterbox).
  data::AugmentParams p = style.mosaic_warp == sdk::AugmentStyle::MosaicWarp::half_resize
                              ? data::AugmentParams::yolo9(c.imgsz)
                              : data::AugmentParams::yolox(c.imgsz);
  p.mixup_style = style.mixup == sdk::AugmentStyle::Mixup::beta_blend ? data::MixupStyle::beta_blend
                                                                      : data::MixupStyle::yolox_paste;
  p.mosaic_upscale_tiles = style.upscale_mosaic_tiles;
  p.mosaic_filter.min_size = style.mosaic_min_box_side;
  p.mosaic_prob = static_cast<float>(c.mosaic_prob);
  p.mixup_prob = static_cast<float>(c.mixup_prob);
  p.hsv_prob = static_cast<float>(c.hsv_prob);
  p.flip_prob = static_cast<float>(c.flip_prob);
  p.affine.degrees = c.degrees;
  p.affine.translate = c.translate;
  p.affine.scale_min = c.mosaic_scale.low;
  p.affine.scale_max = c.mosaic_scale.high;
  p.affine.shear = c.shear;
  p.mixup_scale_min = static_cast<float>(c.mixup_scale.low);
  p.mixup_scale_max = static_cast<float>(c.mixup_scale.high);
  p.validate();
  return p;
}

}  // namespace libreyolo::core::trainer

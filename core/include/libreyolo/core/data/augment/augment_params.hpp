#pragma once
// Every knob of train-time augmentation, with the two LibreYOLO recipes as presets.
//
//                       yolox (MosaicMixupDataset)         yolo9 (YOLO9MosaicMixupDataset)
//   mosaic_prob          1.0                                1.0
//   mosaic centre        U(0.5, 1.5) * imgsz                U(0.5, 1.5) * imgsz
//   tile scale           min(imgsz/h, imgsz/w)              min(1, imgsz/h, imgsz/w)
//   canvas -> output     random affine (below)              resize by 1/2, nothing random
//   degrees / translate  10 / 0.1                           (0 / 0.1 configured, unused)
//   mosaic_scale / shear (0.1, 2.0) / 2.0                   ((0.5, 1.5) / 0 configured, unused)
//   filter after mosaic  none                               w > 2 and h > 2
//   mixup                YOLOX paste, prob 1.0, before HSV   Beta(32, 32) blend, prob 0.0,
//                        scale U(0.5, 1.5)                   after HSV/flip
//   hsv_prob / gains     1.0 / (5, 30, 30)                  1.0 / (5, 30, 30)
//   flip_prob            0.5                                0.5
//   final filter         w > 1 and h > 1                    w > 1 and h > 1
//   letterbox            top-left, 114                      top-left, 114
//   no_aug_epochs        15: mosaic and mixup off, HSV and flip stay on (both families)

#include "libreyolo/core/data/augment/affine_matrix.hpp"
#include "libreyolo/core/data/augment/box_filter.hpp"
#include "libreyolo/core/data/augment/hsv.hpp"
#include "libreyolo/core/data/augment/letterbox.hpp"

namespace libreyolo::core::data {

enum class MosaicWarp {
  random_affine,  // YOLOX: random rotation/scale/shear/translation of the 2x canvas
  half_resize,    // yolo9: the 2x canvas resized to imgsz
};

enum class MixupStyle {
  yolox_paste,  // jittered paste, 50/50, on the mosaic before HSV and flip
  beta_blend,   // Beta(alpha, alpha) blend with a plain sample, after HSV and flip
};

struct AugmentParams {
  int imgsz = 640;

  float mosaic_prob = 1.0f;
  float mosaic_centre_min = 0.5f;  // centre drawn from [min, max) * imgsz per axis
  float mosaic_centre_max = 1.5f;
  bool mosaic_upscale_tiles = true;  // tiles smaller than imgsz are enlarged (YOLOX) or not
  MosaicWarp mosaic_warp = MosaicWarp::random_affine;
  AffineRange affine;              // degrees, translate, mosaic_scale, shear
  BoxFilter mosaic_filter;         // right after the mosaic warp

  float mixup_prob = 1.0f;  // applied only to mosaic samples, as in LibreYOLO
  MixupStyle mixup_style = MixupStyle::yolox_paste;
  float mixup_scale_min = 0.5f;  // yolox_paste jitter
  float mixup_scale_max = 1.5f;
  float mixup_beta = 32.0f;      // beta_blend: ratio ~ Beta(mixup_beta, mixup_beta)
  int mixup_attempts = 16;       // yolox_paste looks for a labelled image this many times

  float hsv_prob = 1.0f;
  HsvGains hsv;
  float flip_prob = 0.5f;

  BoxFilter final_filter{1.0f, 0.0f, 0.0f};
  LetterboxPad letterbox_pad = LetterboxPad::top_left;

  static AugmentParams yolox(int imgsz = 640);
  static AugmentParams yolo9(int imgsz = 640);

  // The same recipe for the final no_aug_epochs: mosaic (and so mixup) off, HSV and flip kept,
  // as LibreYOLO's close_mosaic().
  AugmentParams without_mosaic() const;

  // Throws libreyolo::core::Error naming the first bad value.
  void validate() const;
};

}  // namespace libreyolo::core::data

#pragma once
// Train-time augmentation as data: a family lists the host's transforms, with their
// parameters, in the order a sample goes through them. The host owns the mechanisms (uint8,
// SIMD, deterministic per sample); the family only says which ones, how strong, and when
// (a recipe may hold several named pipelines and switch between them at declared epochs, see
// epoch_schedule.hpp). Torch-free, like family.hpp.
//
// How a sample flows through a pipeline. The working sample starts as the dataset image (as
// the decode-once cache holds it: long side imgsz) with its boxes in its pixels.
//   Mosaic         with `prob`: the sample and three random others on a 2x canvas, brought to
//                  imgsz x imgsz (random affine or halved); otherwise the sample is unchanged.
//   Mixup          only on a sample the Mosaic made (as LibreYOLO); `paste` happens here, a
//                  `beta_blend` is decided here and blended once the rest of the pipeline has
//                  run, with a second sample that went through the pipeline without its
//                  Mosaic and Mixup.
//   Letterbox      a sample not yet imgsz x imgsz is resized (aspect kept) and padded; later
//                  colour and flip transforms only touch the image, not the padding.
//   Hsv, Flip      colour jitter and horizontal flip of the image part.
//   FilterBoxes    clip to the image, keep boxes whose width and height exceed `min_side`.
//   PhotometricDistort, ZoomOut, IoUCrop, SanitizeBoxes
//                  torchvision v2's RandomPhotometricDistort, RandomZoomOut, RandomIoUCrop and
//                  SanitizeBoundingBoxes semantics (ranges, probabilities, order of draws).
//   StretchResize  the sample resized to imgsz x imgsz per axis (aspect not kept), bilinear,
//                  antialiased when shrinking (torchvision v2's Resize(antialias=True)).
//   MaxLabels      keep the first `count` boxes.
// A pipeline must end with the sample at imgsz x imgsz: its last geometric transform is a
// Mosaic followed by Letterbox, a Letterbox or a StretchResize (checked when the run starts).
//
// User options override the matching parameter of every transform of that kind in every
// pipeline (mosaic_prob, mixup_prob, hsv_prob, flip_prob, degrees, translate, shear,
// mosaic_scale, mixup_scale); an option never adds a transform a pipeline does not have.

#include <string>
#include <variant>
#include <vector>

#include "libreyolo/sdk/range.hpp"

namespace libreyolo::sdk::augment {

struct Mosaic {
  enum class Warp {
    random_affine,  // YOLOX: random rotation, scale, shear, translation of the 2x canvas
    half_resize,    // YOLOv9: the 2x canvas halved, nothing random
  };
  double prob = 1.0;
  Warp warp = Warp::random_affine;
  Range centre{0.5, 1.5};        // mosaic centre drawn from [low, high) x imgsz per axis
  bool upscale_tiles = true;     // tiles smaller than imgsz are enlarged (YOLOX) or not (YOLOv9)
  double min_box_side = 0.0;     // boxes this narrow or short (px) after the warp are dropped
  // random_affine only.
  double degrees = 10.0;
  double translate = 0.1;        // fraction of imgsz
  Range scale{0.1, 2.0};         // the mosaic_scale option
  double shear = 2.0;            // degrees
};

struct Mixup {
  enum class Style {
    paste,       // YOLOX: a jittered labelled image averaged 50/50 into the mosaic
    beta_blend,  // YOLOv9: a Beta(beta, beta) blend with a second plainly augmented sample
  };
  double prob = 1.0;
  Style style = Style::paste;
  Range scale{0.5, 1.5};  // paste: random scale of the pasted image (the mixup_scale option)
  double beta = 32.0;     // beta_blend: the Beta distribution's two parameters
};

struct Letterbox {
  enum class Placement { top_left, centre };
  Placement placement = Placement::top_left;  // LibreYOLO's YOLOs pad at the right and bottom
  int pad_value = 114;
};

struct Hsv {
  double prob = 1.0;
  // Largest |delta| per channel on OpenCV's 8-bit HSV (YOLOX's hgain, sgain, vgain).
  double hue_gain = 5.0, saturation_gain = 30.0, value_gain = 30.0;
};

struct Flip {
  double prob = 0.5;
};

// LibreYOLO's YOLO box filter: clip, then keep a box only if width > min_side and height > min_side.
struct FilterBoxes {
  double min_side = 1.0;
};

// torchvision.transforms.v2.RandomPhotometricDistort.
struct PhotometricDistort {
  Range brightness{0.875, 1.125};
  Range contrast{0.5, 1.5};
  Range saturation{0.5, 1.5};
  Range hue{-0.05, 0.05};
  double prob = 0.5;  // each of the five adjustments (channel shuffle included) on its own
  bool skip_without_boxes = false;  // D-FINE's "strong" transforms leave box-less images alone
};

// torchvision.transforms.v2.RandomZoomOut: the image placed at a random spot of a larger canvas.
struct ZoomOut {
  int fill = 0;
  Range side{1.0, 4.0};  // canvas side / image side
  double prob = 0.5;
  bool skip_without_boxes = false;
};

// torchvision.transforms.v2.RandomIoUCrop, applied with `prob` (D-FINE wraps it with p = 0.8).
struct IoUCrop {
  double min_scale = 0.3, max_scale = 1.0;
  double min_aspect_ratio = 0.5, max_aspect_ratio = 2.0;
  std::vector<double> sampler_options{0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0};
  int trials = 40;
  double prob = 1.0;
  bool skip_without_boxes = false;
};

// torchvision.transforms.v2.SanitizeBoundingBoxes: drop boxes narrower or shorter than min_size.
struct SanitizeBoxes {
  double min_size = 1.0;
};

// torchvision.transforms.v2.Resize((imgsz, imgsz)): both axes to imgsz.
struct StretchResize {
  bool antialias = true;
};

struct MaxLabels {
  int count = 120;
};

using Transform = std::variant<Mosaic, Mixup, Letterbox, Hsv, Flip, FilterBoxes, PhotometricDistort, ZoomOut,
                               IoUCrop, SanitizeBoxes, StretchResize, MaxLabels>;

// A named list of transforms: the name is how an epoch schedule switches to it.
struct Pipeline {
  std::string name;
  std::vector<Transform> transforms;
};

}  // namespace libreyolo::sdk::augment

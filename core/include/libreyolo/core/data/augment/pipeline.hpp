#pragma once
// Runs a family's declared augmentation pipeline (sdk/augmentation.hpp) on one sample: the
// host's side of the seam. A family lists transforms and their parameters; this file owns the
// mechanisms and the order of their random draws, so a seed means the same bytes and boxes
// whatever the worker thread.
//
//   auto pipeline = prepare_pipeline(recipe.augmentation[0], imgsz, overrides);   // once
//   run_pipeline(source, index, pipeline, rng, scratch, out, boxes);              // per sample
//
// docs/augmentation.md describes the pipeline model; the transforms' own semantics are in
// their headers (mosaic.hpp, mixup.hpp, hsv.hpp, flip.hpp, letterbox.hpp, box_filter.hpp).

#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "libreyolo/core/data/augment/augment_source.hpp"
#include "libreyolo/core/data/augment/color_adjust.hpp"
#include "libreyolo/core/data/augment/interpolate_bilinear.hpp"
#include "libreyolo/core/data/augment/mixup.hpp"
#include "libreyolo/core/data/augment/resize_bilinear.hpp"
#include "libreyolo/core/data/augment/warp_affine.hpp"
#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/data/image/sample.hpp"
#include "libreyolo/sdk/augmentation.hpp"

namespace libreyolo::core::data {

// What the user set on the command line or in a cfg file. Each overrides that parameter of
// every transform of its kind in a pipeline; none adds a transform the pipeline lacks.
struct AugmentOverrides {
  std::optional<double> mosaic_prob, mixup_prob, hsv_prob, flip_prob;
  std::optional<double> degrees, translate, shear;
  std::optional<sdk::Range> mosaic_scale, mixup_scale;
};

// A declared pipeline made ready to run: overrides applied, parameters checked, and the
// sample known to end at imgsz x imgsz.
struct PreparedPipeline {
  std::string name;
  int imgsz = 640;
  std::vector<sdk::augment::Transform> transforms;
};

// Throws core::Error naming the pipeline, the transform and the bad parameter, or saying which
// transform is missing for the sample to end at imgsz x imgsz.
PreparedPipeline prepare_pipeline(const sdk::augment::Pipeline& declared, int imgsz,
                                  const AugmentOverrides& overrides = {});

// Buffers reused from sample to sample; one per loader worker.
struct AugmentScratch {
  WarpScratch warp;
  ResizeScratch resize;
  MixupScratch mixup;
  Image tiles[4];      // mosaic tiles rescaled when a source hands over another size
  Image second;        // beta_blend's second sample
  Image work[2];       // a sample between transforms that change its size (zoom-out, crop)
  ColorScratch color;  // photometric distort's tables
  InterpolateScratch interpolate;  // stretch resize
  std::vector<PixelBox> canvas_boxes, second_boxes;
};

// Writes the augmented sample `index` into `out` (exactly imgsz x imgsz) and its boxes (output
// pixels) into `boxes`. Throws core::Error for a wrong output size or an empty source.
void run_pipeline(AugmentSource& source, std::size_t index, const PreparedPipeline& pipeline,
                  std::mt19937_64& rng, AugmentScratch& scratch, MutableImageView out,
                  std::vector<PixelBox>& boxes);

}  // namespace libreyolo::core::data

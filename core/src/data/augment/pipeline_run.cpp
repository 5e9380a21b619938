#include <string>
#include <type_traits>

#include "libreyolo/core/error.hpp"
#include "pipeline_stages.hpp"

namespace libreyolo::core::data {
namespace pipeline {

void run_transforms(const std::vector<sdk::augment::Transform>& transforms, StageContext& c, WorkingSample& s,
                    bool plain) {
  for (const auto& transform : transforms) {
    std::visit(
        [&](const auto& t) {
          using T = std::decay_t<decltype(t)>;
          constexpr bool mosaic_or_mixup =
              std::is_same_v<T, sdk::augment::Mosaic> || std::is_same_v<T, sdk::augment::Mixup>;
          if constexpr (mosaic_or_mixup) {
            if (plain) return;
          }
          apply(t, c, s);
        },
        transform);
  }
}

}  // namespace pipeline

void run_pipeline(AugmentSource& source, std::size_t index, const PreparedPipeline& p, std::mt19937_64& rng,
                  AugmentScratch& scratch, MutableImageView out, std::vector<PixelBox>& boxes) {
  if (out.width != p.imgsz || out.height != p.imgsz || out.pixels == nullptr) {
    throw Error("augmentation output is " + std::to_string(out.width) + "x" + std::to_string(out.height) +
                    ", expected " + std::to_string(p.imgsz) + "x" + std::to_string(p.imgsz),
                "each sample is written into one imgsz x imgsz slot of the batch buffer",
                "allocate the batch with the same imgsz as the pipeline");
  }
  if (source.size() == 0) {
    throw Error("cannot augment: the dataset has no images", "the image source is empty",
                "check the dataset path and that its images were found");
  }
  pipeline::StageContext context{source, index, p.imgsz, rng, scratch, out};
  pipeline::WorkingSample sample(context, boxes);
  pipeline::run_transforms(p.transforms, context, sample, /*plain=*/false);
  if (!sample.at_output()) {
    // prepare_pipeline() refuses pipelines that can end elsewhere; reaching this is a bug.
    throw Error("augmentation pipeline '" + p.name + "' left a " + std::to_string(sample.width()) + "x" +
                    std::to_string(sample.height()) + " sample",
                "it must end at imgsz x imgsz", "report this with the family's recipe");
  }
  pipeline::finish_beta_blend(p.transforms, context, sample);
}

}  // namespace libreyolo::core::data

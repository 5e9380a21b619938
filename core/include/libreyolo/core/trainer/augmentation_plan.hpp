#pragma once
// The run's augmentation: the recipe's declared pipelines, prepared at the run's imgsz with
// the user's overrides, in the order the epoch schedule refers to them by name.

#include <cstddef>
#include <string>
#include <vector>

#include "libreyolo/core/data/augment/pipeline.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "libreyolo/sdk/recipe.hpp"

namespace libreyolo::core::trainer {

struct AugmentationPlan {
  std::vector<data::PreparedPipeline> pipelines;  // index = data::EpochMode::pipeline; [0] from epoch 0

  // Throws core::Error naming the pipelines there are.
  std::size_t index_of(const std::string& name) const;
};

// A recipe without pipelines gets one, "letterbox": every sample only letterboxed.
AugmentationPlan plan_augmentation(const sdk::Recipe& recipe, int imgsz, const data::AugmentOverrides& overrides);

// The augmentation options the user set (cfg file or command line), as overrides; options
// left at the family's or the global default leave the declared pipelines as they are.
data::AugmentOverrides augment_overrides(const config::TrainConfig& config);

}  // namespace libreyolo::core::trainer

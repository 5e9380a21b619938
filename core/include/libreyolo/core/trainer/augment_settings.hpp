#pragma once
// Train-time augmentation settings from the resolved options and the family's declared style.

#include "libreyolo/core/data/augment/augment_params.hpp"
#include "libreyolo/core/trainer/train_config.hpp"
#include "libreyolo/sdk/family.hpp"

namespace libreyolo::core::trainer {

data::AugmentParams augment_params_for(const TrainConfig& config, const sdk::AugmentStyle& style);

}  // namespace libreyolo::core::trainer

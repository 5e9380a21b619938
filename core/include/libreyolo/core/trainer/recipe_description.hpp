#pragma once
// What a family's recipe declares beyond option defaults, as lines for `libreyolo-host
// families NAME`: its augmentation pipelines, its epoch schedule, the optimizer groups a size
// gets (the detector is built on the CPU to count them) and its frozen parameters.

#include <string>
#include <vector>

#include "libreyolo/core/plugins/family_registry.hpp"
#include "libreyolo/sdk/epoch_schedule.hpp"

namespace libreyolo::core::trainer {

// "epoch 7", "epochs - 20", "epochs - no_aug_epochs", "0.85 x epochs".
std::string describe_epoch_point(const sdk::EpochPoint& point);

std::vector<std::string> describe_recipe(const plugins::LoadedFamily& family, const std::string& size);

}  // namespace libreyolo::core::trainer

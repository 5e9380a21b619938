#pragma once
// The sizes a multi-scale run draws its batches from: the recipe's own list, or the list its
// rule derives from the run's imgsz (sdk::MultiScale::Around). Checked: positive multiples of 32.

#include <string>
#include <vector>

#include "libreyolo/sdk/recipe.hpp"

namespace libreyolo::core::trainer {

std::vector<int> multi_scale_sizes(const sdk::MultiScale& declared, int imgsz);

// One line for `families` and the run log: the list, or the rule that makes it.
std::string describe_multi_scale(const sdk::MultiScale& declared);

}  // namespace libreyolo::core::trainer

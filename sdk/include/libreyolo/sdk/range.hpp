#pragma once
// A closed (low, high) range of numbers, e.g. mosaic_scale = (0.1, 2.0). Its own header so the
// recipe's parts (augmentation.hpp, recipe.hpp) can share it without including each other.

namespace libreyolo::sdk {

struct Range {
  double low = 0.0;
  double high = 0.0;
};

}  // namespace libreyolo::sdk

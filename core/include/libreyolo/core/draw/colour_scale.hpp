#pragma once
// A colour for a value in [0, 1], for heat maps (confusion_matrix_normalized.png): matplotlib's
// "Blues", the map Ultralytics draws its confusion matrix with, so the picture reads the same.
// Plain arithmetic (no OpenCV).

#include "libreyolo/core/draw/box_style.hpp"

namespace libreyolo::core::draw {

// Near white at 0, dark blue at 1; values outside [0, 1] (and NaN) are clamped to the ends
// (NaN to 0).
Rgb blues(double value);

}  // namespace libreyolo::core::draw

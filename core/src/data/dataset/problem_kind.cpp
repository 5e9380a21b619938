#include "libreyolo/core/data/dataset/problem_kind.hpp"

namespace libreyolo::core::data {

bool is_problem(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::kCoordinateClipped:
    case ProblemKind::kPolygonConverted:
    case ProblemKind::kBackgroundImage:
      return false;
    default:
      return true;
  }
}

bool is_row_problem(ProblemKind kind) {
  return static_cast<int>(kind) <= static_cast<int>(ProblemKind::kDuplicateRow) ||
         kind == ProblemKind::kCoordinateClipped || kind == ProblemKind::kPolygonConverted;
}

const char* describe(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::kWrongColumnCount:
      return "label rows without 5 columns (class cx cy w h) dropped";
    case ProblemKind::kNonNumericValue:
      return "label rows with a non-numeric value dropped";
    case ProblemKind::kNonFiniteValue:
      return "label rows with NaN or infinity dropped";
    case ProblemKind::kCoordinateOutOfRange:
      return "label rows with a coordinate outside [0, 1] dropped (labels must be normalised)";
    case ProblemKind::kNonPositiveSize:
      return "label rows with zero or negative width/height dropped";
    case ProblemKind::kClassOutOfRange:
      return "label rows with a class id outside [0, nc) dropped";
    case ProblemKind::kClassNotInteger:
      return "label rows with a non-integer class id dropped";
    case ProblemKind::kDuplicateRow:
      return "duplicate label rows removed";
    case ProblemKind::kLabelUnreadable:
      return "images skipped because their label file could not be read";
    case ProblemKind::kLabelWithoutImage:
      return "label files without an image (ignored)";
    case ProblemKind::kImageUnreadable:
      return "images skipped because they are corrupt, truncated or not JPEG/PNG";
    case ProblemKind::kImageDroppedForBadRows:
      return "images skipped because their label file had invalid rows";
    case ProblemKind::kCoordinateClipped:
      return "label rows slightly outside [0, 1] clipped into range";
    case ProblemKind::kPolygonConverted:
      return "polygon label rows converted to their bounding box";
    case ProblemKind::kBackgroundImage:
      return "background images (no label file or an empty one)";
  }
  return "unknown problem";
}

}  // namespace libreyolo::core::data

#pragma once
// Every kind of thing a dataset scan can find wrong (or worth telling) about images and labels.
// One enum shared by the label parser, the scan, its cache and its report, so a finding keeps
// the same name from the line that produced it to the summary the user reads.

#include <cstddef>
#include <cstdint>

namespace libreyolo::core::data {

enum class ProblemKind : std::uint8_t {
  // Row-level problems: the row is dropped, the rest of the file is kept.
  kWrongColumnCount,
  kNonNumericValue,
  kNonFiniteValue,
  kCoordinateOutOfRange,
  kNonPositiveSize,
  kClassOutOfRange,
  kClassNotInteger,
  kDuplicateRow,
  // File-level problems: the image is skipped (or, for orphans, nothing is trained from it).
  kLabelUnreadable,
  kLabelWithoutImage,
  kImageUnreadable,
  kImageDroppedForBadRows,
  // Notices: nothing is lost, but a user reviewing a dataset wants to know.
  kCoordinateClipped,
  kPolygonConverted,
  kBackgroundImage,
};

inline constexpr std::size_t kProblemKindCount =
    static_cast<std::size_t>(ProblemKind::kBackgroundImage) + 1;

// False for the notices above: they are reported but do not count toward the problem total.
bool is_problem(ProblemKind kind);

// "rows with a class id outside [0, nc)"-style phrase for the report, plural form.
const char* describe(ProblemKind kind);

// True for kinds that describe one row of a label file (reported as file:line).
bool is_row_problem(ProblemKind kind);

}  // namespace libreyolo::core::data

#pragma once
// YOLO label files: one object per line, "class cx cy w h", coordinates normalised to [0, 1]
// by the image's width and height. Parsing validates every row the way trusted tools do and
// keeps the good rows of a file that has bad ones (the scan counts and reports every drop).

#include <cstdint>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "libreyolo/core/data/dataset/problem_kind.hpp"

namespace libreyolo::core::data {

struct LabelBox {
  int class_id = 0;
  float cx = 0, cy = 0, w = 0, h = 0;  // normalised to [0, 1]

  friend bool operator==(const LabelBox& a, const LabelBox& b) {
    return a.class_id == b.class_id && a.cx == b.cx && a.cy == b.cy && a.w == b.w && a.h == b.h;
  }
};

// Something about one row: a problem (row dropped) or a notice (row kept, e.g. clipped).
struct RowFinding {
  ProblemKind kind;
  std::uint32_t line;  // 1-based, as an editor shows it
};

struct LabelFile {
  std::vector<LabelBox> boxes;       // valid rows, duplicates removed, in file order
  std::vector<RowFinding> findings;  // one per dropped row, plus notices
  bool has_dropped_rows() const;
};

// Coordinates within this distance outside [0, 1] are rounding noise from exporters and are
// clipped into range; further out, the row is invalid (probably pixel coordinates).
inline constexpr double kCoordinateTolerance = 1e-3;

// More rows than any real image has objects (dense retail and aerial datasets stay in the
// thousands). A bigger file is refused instead of parsed, so a stray log or a concatenation of
// every label file cannot stall the start of a run.
inline constexpr std::size_t kMaxLabelRows = 100000;
// A bigger file is not even read (kMaxLabelRows rows of long polygons stay far below it).
inline constexpr std::uint64_t kMaxLabelBytes = 64ull << 20;

// Parses the text of a label file for a dataset of `nc` classes. Rules, first failure wins:
//  - blank lines are skipped; '\r' (Windows line ends) and a UTF-8 BOM are tolerated;
//  - 5 columns: class cx cy w h; an odd count >= 7 is a polygon "class x1 y1 x2 y2 ..."
//    (segmentation export) and becomes its bounding box; any other count is invalid;
//  - every value must be a number (locale-independent) and finite;
//  - class must be an integer (3 and 3.0 are fine, 3.5 is not) in [0, nc);
//  - coordinates outside [0, 1] by more than kCoordinateTolerance are invalid, closer ones
//    are clipped; width and height must then be > 0;
//  - exact duplicate rows are removed (a duplicated box would double its loss weight).
// Throws libreyolo::core::Error, naming `name` (the file, for the message), when the text has
// more than kMaxLabelRows non-blank rows.
LabelFile parse_label_text(std::string_view text, int nc, const std::string& name = {});

// Reads and parses a label file. Throws libreyolo::core::Error if it cannot be read, is not a
// regular file (a FIFO, a folder, a device) or exceeds kMaxLabelBytes or kMaxLabelRows.
LabelFile read_label_file(const std::filesystem::path& path, int nc);

}  // namespace libreyolo::core::data

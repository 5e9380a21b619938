#include "libreyolo/core/data/dataset/label_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_set>

#include "libreyolo/core/data/image/file_bytes.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::vector<std::string_view> split_columns(std::string_view line) {
  std::vector<std::string_view> columns;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) columns.push_back(line.substr(start, i - start));
  }
  return columns;
}

// std::from_chars ignores the C locale (strtod would read "0,5" in a German locale and stop at
// "0.5"), and must consume the whole column: "0.5abc" is not a number.
bool parse_number(std::string_view text, double* value) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, *value);
  return result.ec == std::errc() && result.ptr == end;
}

std::optional<LabelBox> reject(ProblemKind kind, ProblemKind* problem) {
  *problem = kind;
  return std::nullopt;
}

// Validates one non-blank row. Returns the box, or nullopt with `problem` set.
std::optional<LabelBox> parse_row(std::string_view line, int nc, std::vector<RowFinding>* notices,
                                  std::uint32_t line_number, ProblemKind* problem) {
  const std::vector<std::string_view> columns = split_columns(line);
  const bool is_box = columns.size() == 5;
  const bool is_polygon = columns.size() >= 7 && columns.size() % 2 == 1;
  if (!is_box && !is_polygon) return reject(ProblemKind::kWrongColumnCount, problem);

  std::vector<double> values(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (!parse_number(columns[i], &values[i]))
      return reject(ProblemKind::kNonNumericValue, problem);
  }
  for (double v : values) {
    if (!std::isfinite(v)) return reject(ProblemKind::kNonFiniteValue, problem);
  }
  if (values[0] != std::floor(values[0])) return reject(ProblemKind::kClassNotInteger, problem);
  if (values[0] < 0 || values[0] >= nc) return reject(ProblemKind::kClassOutOfRange, problem);

  bool clipped = false;
  for (std::size_t i = 1; i < values.size(); ++i) {
    double& v = values[i];
    if (v < -kCoordinateTolerance || v > 1.0 + kCoordinateTolerance)
      return reject(ProblemKind::kCoordinateOutOfRange, problem);
    if (v < 0.0 || v > 1.0) {
      v = std::clamp(v, 0.0, 1.0);
      clipped = true;
    }
  }
  LabelBox box;
  box.class_id = static_cast<int>(values[0]);
  if (is_box) {
    box.cx = static_cast<float>(values[1]);
    box.cy = static_cast<float>(values[2]);
    box.w = static_cast<float>(values[3]);
    box.h = static_cast<float>(values[4]);
  } else {
    double x0 = 1, y0 = 1, x1 = 0, y1 = 0;
    for (std::size_t i = 1; i + 1 < values.size(); i += 2) {
      x0 = std::min(x0, values[i]);
      x1 = std::max(x1, values[i]);
      y0 = std::min(y0, values[i + 1]);
      y1 = std::max(y1, values[i + 1]);
    }
    box.cx = static_cast<float>((x0 + x1) / 2);
    box.cy = static_cast<float>((y0 + y1) / 2);
    box.w = static_cast<float>(x1 - x0);
    box.h = static_cast<float>(y1 - y0);
  }
  if (!(box.w > 0.0f) || !(box.h > 0.0f)) return reject(ProblemKind::kNonPositiveSize, problem);
  if (clipped) notices->push_back({ProblemKind::kCoordinateClipped, line_number});
  if (is_polygon) notices->push_back({ProblemKind::kPolygonConverted, line_number});
  return box;
}

// Exact duplicates are found with a hash set: a linear search per row made a 320k-row file
// take 19 s. The hash agrees with LabelBox's operator== (0.0 and -0.0 hash alike; NaN never
// gets here, parse_row rejects it).
struct LabelBoxHash {
  static std::uint64_t bits(float v) {
    if (v == 0.0f) v = 0.0f;
    std::uint32_t u = 0;
    std::memcpy(&u, &v, sizeof u);
    return u;
  }
  std::size_t operator()(const LabelBox& box) const {
    std::uint64_t h = static_cast<std::uint32_t>(box.class_id);
    for (float v : {box.cx, box.cy, box.w, box.h}) h = (h ^ bits(v)) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h ^ (h >> 32));
  }
};

[[noreturn]] void too_many_rows(const std::string& file) {
  const std::string limit = std::to_string(kMaxLabelRows);
  throw Error("Cannot read label file" + file,
              "it has more than " + limit +
                  " rows, far more objects than one image holds (a log, a concatenation of "
                  "label files or a generated file?), so it is not read: it would stall the scan",
              "Keep one file per image with one 'class cx cy w h' row per object, at most " +
                  limit + " rows");
}

}  // namespace

bool LabelFile::has_dropped_rows() const {
  return std::any_of(findings.begin(), findings.end(), [](const RowFinding& f) {
    return is_problem(f.kind) && f.kind != ProblemKind::kDuplicateRow;
  });
}

LabelFile parse_label_text(std::string_view text, int nc, const std::string& name) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  LabelFile file;
  std::unordered_set<LabelBox, LabelBoxHash> seen;
  std::uint32_t line_number = 0;
  std::size_t rows = 0;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++line_number;
    if (std::all_of(line.begin(), line.end(), is_space)) continue;
    if (++rows > kMaxLabelRows) too_many_rows(name.empty() ? std::string() : " " + name);

    ProblemKind problem = ProblemKind::kWrongColumnCount;
    const std::optional<LabelBox> box = parse_row(line, nc, &file.findings, line_number, &problem);
    if (!box) {
      file.findings.push_back({problem, line_number});
    } else if (!seen.insert(*box).second) {
      file.findings.push_back({ProblemKind::kDuplicateRow, line_number});
    } else {
      file.boxes.push_back(*box);
    }
  }
  return file;
}

LabelFile read_label_file(const std::filesystem::path& path, int nc) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path, kMaxLabelBytes, "label file");
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.find('\0') != std::string_view::npos) {
    throw Error("Cannot read label file " + path.string(), "it contains binary data",
                "Label files are text: one 'class cx cy w h' row per object");
  }
  return parse_label_text(text, nc, path.string());
}

}  // namespace libreyolo::core::data

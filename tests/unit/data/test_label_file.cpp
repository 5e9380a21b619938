// YOLO label rows: what is kept, what is dropped, and how each drop is named.
#include <doctest/doctest.h>

#include "data_test_support.hpp"
#include "libreyolo/core/data/dataset/label_file.hpp"
#include "libreyolo/core/error.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::data;

namespace {

// The kind of the single finding a one-row file produces.
ProblemKind only_problem(const std::string& row, int nc = 3) {
  const LabelFile file = parse_label_text(row, nc);
  CAPTURE(row);
  REQUIRE(file.boxes.empty());
  REQUIRE(file.findings.size() == 1);
  CHECK(file.findings[0].line == 1);
  return file.findings[0].kind;
}

}  // namespace

TEST_CASE("Valid rows parse, blank lines, CRLF, tabs and a BOM are tolerated") {
  const LabelFile file = parse_label_text(
      "\xEF\xBB\xBF"
      "0 0.5 0.5 0.2 0.4\r\n\n   \r\n2\t0.1 0.2\t0.05 0.1\n1 .5 .5 1 1",
      3);
  REQUIRE(file.boxes.size() == 3);
  CHECK(file.findings.empty());
  CHECK(file.boxes[0] == LabelBox{0, 0.5f, 0.5f, 0.2f, 0.4f});
  CHECK(file.boxes[1] == LabelBox{2, 0.1f, 0.2f, 0.05f, 0.1f});
  CHECK(file.boxes[2].class_id == 1);
  CHECK(parse_label_text("", 3).boxes.empty());
  CHECK(parse_label_text("\n\n", 3).findings.empty());
  CHECK(parse_label_text("2.0 0.5 0.5 0.1 0.1", 3).boxes.size() == 1);  // integral float class
  CHECK(parse_label_text("+1 0.5 0.5 1e-1 0.1", 3).boxes.size() == 1);
}

TEST_CASE("Each invalid row kind is recognised") {
  CHECK(only_problem("0 0.5 0.5 0.2") == ProblemKind::kWrongColumnCount);
  CHECK(only_problem("0 0.5 0.5 0.2 0.2 0.7") == ProblemKind::kWrongColumnCount);
  CHECK(only_problem("0 0.5 abc 0.2 0.2") == ProblemKind::kNonNumericValue);
  CHECK(only_problem("0 0.5 0.5abc 0.2 0.2") == ProblemKind::kNonNumericValue);
  CHECK(only_problem("0 0,5 0.5 0.2 0.2") == ProblemKind::kNonNumericValue);
  CHECK(only_problem("person 0.5 0.5 0.2 0.2") == ProblemKind::kNonNumericValue);
  CHECK(only_problem("0 nan 0.5 0.2 0.2") == ProblemKind::kNonFiniteValue);
  CHECK(only_problem("0 0.5 inf 0.2 0.2") == ProblemKind::kNonFiniteValue);
  CHECK(only_problem("0 0.5 0.5 1.01 0.2") == ProblemKind::kCoordinateOutOfRange);
  CHECK(only_problem("0 320 240 50 60") == ProblemKind::kCoordinateOutOfRange);
  CHECK(only_problem("0 -0.01 0.5 0.2 0.2") == ProblemKind::kCoordinateOutOfRange);
  CHECK(only_problem("0 0.5 0.5 0 0.2") == ProblemKind::kNonPositiveSize);
  CHECK(only_problem("0 0.5 0.5 0.2 -0.0005") == ProblemKind::kNonPositiveSize);
  CHECK(only_problem("3 0.5 0.5 0.2 0.2") == ProblemKind::kClassOutOfRange);
  CHECK(only_problem("-1 0.5 0.5 0.2 0.2") == ProblemKind::kClassOutOfRange);
  CHECK(only_problem("1.5 0.5 0.5 0.2 0.2") == ProblemKind::kClassNotInteger);
}

TEST_CASE("Bad rows are dropped one by one, good rows of the same file are kept") {
  const LabelFile file =
      parse_label_text("0 0.5 0.5 0.2 0.2\n7 0.5 0.5 0.2 0.2\n1 0.3 0.3 0.1 0.1\nx\n", 3);
  REQUIRE(file.boxes.size() == 2);
  REQUIRE(file.findings.size() == 2);
  CHECK(file.findings[0].kind == ProblemKind::kClassOutOfRange);
  CHECK(file.findings[0].line == 2);
  CHECK(file.findings[1].kind == ProblemKind::kWrongColumnCount);
  CHECK(file.findings[1].line == 4);
  CHECK(file.has_dropped_rows());
}

TEST_CASE("Coordinates within the tolerance are clipped into [0, 1] and noted") {
  const LabelFile file = parse_label_text("0 1.0005 0.5 0.2 -0.0 \n1 0.5 -0.0009 0.2 1.0009", 3);
  REQUIRE(file.boxes.size() == 1);  // the first row's height clips to 0 -> dropped
  CHECK(file.boxes[0].cy == 0.0f);
  CHECK(file.boxes[0].h == 1.0f);
  REQUIRE(file.findings.size() == 2);
  CHECK(file.findings[0].kind == ProblemKind::kNonPositiveSize);
  CHECK(file.findings[1].kind == ProblemKind::kCoordinateClipped);
  CHECK(file.findings[1].line == 2);
  CHECK_FALSE(is_problem(ProblemKind::kCoordinateClipped));
}

TEST_CASE("Duplicate rows are removed and counted, the image keeps its boxes") {
  const LabelFile file = parse_label_text(
      "0 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.2 0.2\n0 0.50 0.5 0.2 0.2\n", 3);
  CHECK(file.boxes.size() == 2);
  REQUIRE(file.findings.size() == 2);
  CHECK(file.findings[0].kind == ProblemKind::kDuplicateRow);
  CHECK(file.findings[0].line == 2);
  CHECK(file.findings[1].line == 4);
  CHECK_FALSE(file.has_dropped_rows());
}

TEST_CASE("Polygon rows become their bounding box") {
  const LabelFile file = parse_label_text("2 0.1 0.2 0.5 0.2 0.5 0.6 0.1 0.6", 3);
  REQUIRE(file.boxes.size() == 1);
  CHECK(file.boxes[0].class_id == 2);
  CHECK(file.boxes[0].cx == doctest::Approx(0.3));
  CHECK(file.boxes[0].cy == doctest::Approx(0.4));
  CHECK(file.boxes[0].w == doctest::Approx(0.4));
  CHECK(file.boxes[0].h == doctest::Approx(0.4));
  REQUIRE(file.findings.size() == 1);
  CHECK(file.findings[0].kind == ProblemKind::kPolygonConverted);
  CHECK(only_problem("0 0.1 0.1 0.1 0.1 0.1 0.1") == ProblemKind::kNonPositiveSize);
}

TEST_CASE("read_label_file reports unreadable and binary files") {
  libreyolo::test::TempDir dir;
  libreyolo::test::write_text(dir / "ok.txt", "0 0.5 0.5 0.2 0.2\n");
  CHECK(read_label_file(dir / "ok.txt", 1).boxes.size() == 1);
  libreyolo::test::write_bytes(dir / "binary.txt", {0x00, 0x01, 0x02});
  CHECK_THROWS_AS(read_label_file(dir / "binary.txt", 1), Error);
  CHECK_THROWS_AS(read_label_file(dir / "missing.txt", 1), Error);
}

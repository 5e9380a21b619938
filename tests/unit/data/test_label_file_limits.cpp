// Big label files (issue #20, item 8): the duplicate-row check is linear, a file of more rows
// than any image has objects is refused with a message, and so is one too big to read.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "data_test_support.hpp"
#include "libreyolo/core/data/dataset/label_file.hpp"
#include "libreyolo/core/error.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::data;
using libreyolo::test::TempDir;
using libreyolo::test::write_text;
namespace fs = std::filesystem;

namespace {

// `rows` distinct valid rows ("0 cx cy 0.001 0.001" on a 1000 x 1000 grid), in well under a
// second; the first is "0 0.0005 0.0005 0.001 0.001".
std::string distinct_rows(std::size_t rows) {
  std::string text;
  text.reserve(rows * 32);
  char line[64];
  for (std::size_t i = 0; i < rows; ++i) {
    std::snprintf(line, sizeof line, "0 %.4f %.4f 0.001 0.001\n", 0.0005 + 0.0009 * (i % 1000),
                  0.0005 + 0.0009 * static_cast<double>(i / 1000 % 1000));
    text += line;
  }
  return text;
}

}  // namespace

TEST_CASE("Duplicate rows are still found, 0 and -0 alike, among many rows") {
  const LabelFile file =
      parse_label_text("0 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.2 0.2\n"
                       "2 0.0 0.5 0.2 0.2\n2 -0.0 0.5 0.2 0.2\n",
                       3);
  CHECK(file.boxes.size() == 3);
  REQUIRE(file.findings.size() == 2);
  CHECK(file.findings[0].kind == ProblemKind::kDuplicateRow);
  CHECK(file.findings[0].line == 3);
  CHECK(file.findings[1].line == 5);
}

TEST_CASE("kMaxLabelRows distinct rows parse quickly (the duplicate check is linear)") {
  // As many rows as allowed, the last repeating the first.
  const std::string text = distinct_rows(kMaxLabelRows - 1) + "0 0.0005 0.0005 0.001 0.001\n";
  const auto start = std::chrono::steady_clock::now();
  const LabelFile file = parse_label_text(text, 1);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(file.boxes.size() == kMaxLabelRows - 1);
  REQUIRE(file.findings.size() == 1);
  CHECK(file.findings[0].kind == ProblemKind::kDuplicateRow);
  CHECK(file.findings[0].line == kMaxLabelRows);
  MESSAGE("parsed ", kMaxLabelRows, " rows in ", seconds, " s");
  // The linear search per row took about 2 s for these rows on an idle machine (22 s on a
  // loaded one), the hash set 0.05 s (0.25 s loaded): a bound between them, far from both.
  CHECK(seconds < 1.0);
}

TEST_CASE("A label file of more than kMaxLabelRows rows is refused with what, why and what to do") {
  TempDir dir;
  write_text(dir / "big.txt", distinct_rows(kMaxLabelRows + 1));
  try {
    read_label_file(dir / "big.txt", 1);
    FAIL("a label file of more than kMaxLabelRows rows was read");
  } catch (const Error& e) {
    CHECK(e.what_happened().find((dir / "big.txt").string()) != std::string::npos);
    CHECK(e.why().find("more than " + std::to_string(kMaxLabelRows) + " rows") != std::string::npos);
    CHECK(e.what_to_do().find("one file per image") != std::string::npos);
  }
  // Blank lines do not count; exactly kMaxLabelRows rows are fine.
  CHECK(parse_label_text(distinct_rows(kMaxLabelRows) + "\n\n\n", 1).boxes.size() == kMaxLabelRows);
}

TEST_CASE("A label file bigger than kMaxLabelBytes is not even read") {
  TempDir dir;
  write_text(dir / "huge.txt", "0 0.5 0.5 0.1 0.1\n");
  fs::resize_file(dir / "huge.txt", kMaxLabelBytes + 1);  // sparse: no time, no disk
  try {
    read_label_file(dir / "huge.txt", 1);
    FAIL("a label file bigger than kMaxLabelBytes was read");
  } catch (const Error& e) {
    CHECK(e.why().find("65 MiB") != std::string::npos);
    CHECK(e.why().find("at most 64 MiB") != std::string::npos);
  }
}

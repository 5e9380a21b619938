#pragma once
// What a dataset scan found, counted per kind with the first few offending files, so a user can
// open the exact file that is wrong instead of reading a log of 10,000 lines.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "libreyolo/core/data/dataset/problem_kind.hpp"

namespace libreyolo::core::data {

struct ProblemTally {
  std::size_t count = 0;
  std::vector<std::string> examples;  // "labels/train/a.txt:3" for rows, file names otherwise
};

struct ScanReport {
  std::string split;              // "train", "val", ...
  std::size_t images_listed = 0;  // images the split names
  std::size_t images_usable = 0;  // images kept for training/evaluation
  std::size_t boxes = 0;          // boxes in usable images
  std::size_t cache_hits = 0;     // images whose scan result came from the cache
  std::size_t examples_per_kind = 5;
  std::array<ProblemTally, kProblemKindCount> tallies{};

  // Counts `count` occurrences; keeps `example` while fewer than examples_per_kind are kept.
  void add(ProblemKind kind, const std::string& example, std::size_t count = 1);
  const ProblemTally& tally(ProblemKind kind) const;
  std::size_t count(ProblemKind kind) const { return tally(kind).count; }
  // Problems only (notices such as background images and clipped rows are not problems).
  std::size_t total_problems() const;
};

// One block of text: a headline, then per kind found "<what>: <how many>" followed by the first
// files (one per line, row problems as file:line), problems first, then notices, then the total.
std::string format_scan_report(const ScanReport& report);

}  // namespace libreyolo::core::data

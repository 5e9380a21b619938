#include "libreyolo/core/data/dataset/scan_report.hpp"

namespace libreyolo::core::data {
namespace {

// "<what>: <how many>", then the first files, one per line, so each can be copied and opened.
void append_kind_lines(const ScanReport& report, ProblemKind kind, std::string* out) {
  const ProblemTally& tally = report.tally(kind);
  if (tally.count == 0) return;
  *out += "\n  " + std::string(describe(kind)) + ": " + std::to_string(tally.count);
  for (const std::string& example : tally.examples) *out += "\n      " + example;
  if (tally.count > tally.examples.size()) {
    *out += "\n      ... and " + std::to_string(tally.count - tally.examples.size()) + " more";
  }
}

}  // namespace

void ScanReport::add(ProblemKind kind, const std::string& example, std::size_t count) {
  ProblemTally& tally = tallies[static_cast<std::size_t>(kind)];
  tally.count += count;
  if (tally.examples.size() < examples_per_kind) tally.examples.push_back(example);
}

const ProblemTally& ScanReport::tally(ProblemKind kind) const {
  return tallies[static_cast<std::size_t>(kind)];
}

std::size_t ScanReport::total_problems() const {
  std::size_t total = 0;
  for (std::size_t i = 0; i < kProblemKindCount; ++i) {
    if (is_problem(static_cast<ProblemKind>(i))) total += tallies[i].count;
  }
  return total;
}

std::string format_scan_report(const ScanReport& report) {
  std::string out = "Dataset split '" + report.split +
                    "': " + std::to_string(report.images_listed) + " images listed, " +
                    std::to_string(report.images_usable) + " usable, " +
                    std::to_string(report.boxes) + " boxes";
  if (report.cache_hits > 0) {
    out += " (" + std::to_string(report.cache_hits) + " images read from the scan cache)";
  }
  for (int pass = 0; pass < 2; ++pass) {  // problems first, then notices
    for (std::size_t i = 0; i < kProblemKindCount; ++i) {
      const auto kind = static_cast<ProblemKind>(i);
      if (is_problem(kind) == (pass == 0)) append_kind_lines(report, kind, &out);
    }
  }
  const std::size_t total = report.total_problems();
  out += total == 0 ? "\n  no problems found" : "\n  problems in total: " + std::to_string(total);
  return out;
}

}  // namespace libreyolo::core::data

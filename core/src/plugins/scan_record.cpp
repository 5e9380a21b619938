// The scanner's answer and the words of the scan outcomes (plugin_scan.hpp).
#include <sstream>

#include "libreyolo/core/plugins/plugin_scan.hpp"
#include "libreyolo/core/plugins/record_text.hpp"

namespace libreyolo::core::plugins {
namespace {

constexpr const char* kRecordHeader = "libreyolo-plugin-scan 1";
constexpr const char* kRecordEnd = "end";

}  // namespace

const char* to_string(ScanOutcome outcome) {
  switch (outcome) {
    case ScanOutcome::approved: return "ok";
    case ScanOutcome::refused: return "refused";
    case ScanOutcome::crashed: return "crashed";
    case ScanOutcome::hung: return "hung";
    case ScanOutcome::exited: return "exited";
  }
  return "refused";
}

std::optional<ScanOutcome> scan_outcome_from(const std::string& word) {
  for (auto outcome : {ScanOutcome::approved, ScanOutcome::refused, ScanOutcome::crashed,
                       ScanOutcome::hung, ScanOutcome::exited}) {
    if (word == to_string(outcome)) return outcome;
  }
  return std::nullopt;
}

std::string scan_record_header() { return std::string(kRecordHeader) + "\n"; }

std::string format_scan_answer(const ScanVerdict& verdict) {
  const std::string answer =
      verdict.outcome == ScanOutcome::approved ? "ok\n" : "refused\t" + escape_field(verdict.reason) + "\n";
  return answer + kRecordEnd + "\n";
}

std::string format_scan_record(const ScanVerdict& verdict) {
  return scan_record_header() + format_scan_answer(verdict);
}

std::optional<ScanVerdict> parse_scan_record(const std::string& text) {
  std::istringstream in(text);
  std::string header, answer, end, extra;
  if (!std::getline(in, header) || header != kRecordHeader) return std::nullopt;
  if (!std::getline(in, answer) || !std::getline(in, end) || end != kRecordEnd) return std::nullopt;
  if (std::getline(in, extra)) return std::nullopt;  // a record is exactly three lines
  const auto fields = split_fields(answer);
  if (fields.size() == 1 && fields[0] == "ok") return ScanVerdict{ScanOutcome::approved, ""};
  if (fields.size() != 2 || fields[0] != "refused") return std::nullopt;
  auto reason = unescape_field(fields[1]);
  if (!reason || reason->empty()) return std::nullopt;
  return ScanVerdict{ScanOutcome::refused, *reason};
}

}  // namespace libreyolo::core::plugins

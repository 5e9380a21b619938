#pragma once
// `profile run --repeat N`: launch-bound steps are noisy enough that one window misleads, so N
// windows are measured and summarised: mean and standard deviation of step time and
// utilization, and how often each verdict came out. Written as profile_repeat.json.

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/profiler/profile_report.hpp"

namespace libreyolo::core::profiler {

struct MeanStd {
  double mean = 0;
  double std = 0;  // sample standard deviation (n - 1); 0 for a single run
};

MeanStd mean_and_std(const std::vector<double>& values);

struct RepeatSummary {
  std::vector<std::string> folders;  // prof_1, prof_2, ...
  MeanStd step_ms;                   // unsynchronised step wall time
  MeanStd utilization;               // only runs with a kernel timeline
  int utilization_runs = 0;
  std::vector<std::pair<std::string, int>> verdict_counts;  // most frequent first
  std::vector<std::string> verdicts;                        // per run, in order
};

RepeatSummary summarize_repeats(const std::vector<ProfileReport>& runs, const std::vector<std::string>& folders);

void write_profile_repeat_json(std::ostream& out, const RepeatSummary& summary);
std::string format_repeat_summary(const RepeatSummary& summary);

}  // namespace libreyolo::core::profiler

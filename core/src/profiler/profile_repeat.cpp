#include "libreyolo/core/profiler/profile_repeat.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "libreyolo/core/util/json_writer.hpp"

namespace libreyolo::core::profiler {

MeanStd mean_and_std(const std::vector<double>& values) {
  MeanStd result;
  if (values.empty()) return result;
  double sum = 0;
  for (const double v : values) sum += v;
  result.mean = sum / static_cast<double>(values.size());
  if (values.size() < 2) return result;
  double squares = 0;
  for (const double v : values) squares += (v - result.mean) * (v - result.mean);
  result.std = std::sqrt(squares / static_cast<double>(values.size() - 1));
  return result;
}

RepeatSummary summarize_repeats(const std::vector<ProfileReport>& runs, const std::vector<std::string>& folders) {
  RepeatSummary summary;
  summary.folders = folders;
  std::vector<double> step_ms, utilization;
  std::map<std::string, int> counts;
  for (const auto& run : runs) {
    step_ms.push_back(run.measures.step_wall_ms);
    if (run.measures.kernels_recorded) utilization.push_back(run.measures.utilization);
    const std::string verdict = verdict_name(run.verdict.kind);
    summary.verdicts.push_back(verdict);
    ++counts[verdict];
  }
  summary.step_ms = mean_and_std(step_ms);
  summary.utilization = mean_and_std(utilization);
  summary.utilization_runs = static_cast<int>(utilization.size());
  summary.verdict_counts.assign(counts.begin(), counts.end());
  std::stable_sort(summary.verdict_counts.begin(), summary.verdict_counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return summary;
}

void write_profile_repeat_json(std::ostream& out, const RepeatSummary& s) {
  util::JsonWriter json(out);
  json.begin_object();
  json.member("format", "libreyolo-profile-repeat");
  json.member("runs", static_cast<int>(s.verdicts.size()));
  json.key("folders").begin_array(true);
  for (const auto& folder : s.folders) json.value(folder);
  json.end_array();
  json.key("step_ms").begin_object(true).member("mean", s.step_ms.mean, 4).member("std", s.step_ms.std, 4).end_object();
  json.key("utilization").begin_object(true).member("mean", s.utilization.mean, 6).member("std", s.utilization.std, 6)
      .member("runs", s.utilization_runs).end_object();
  json.key("verdict_counts").begin_object();
  for (const auto& [verdict, count] : s.verdict_counts) json.member(verdict, count);
  json.end_object();
  json.key("verdicts").begin_array(true);
  for (const auto& verdict : s.verdicts) json.value(verdict);
  json.end_array();
  json.end_object();
}

std::string format_repeat_summary(const RepeatSummary& s) {
  char line[256];
  std::snprintf(line, sizeof line, "%zu runs: step %.2f +- %.2f ms (unsynchronised)", s.verdicts.size(), s.step_ms.mean,
                s.step_ms.std);
  std::string text = line;
  if (s.utilization_runs > 0) {
    std::snprintf(line, sizeof line, ", GPU busy %.1f%% +- %.1f%%", 100 * s.utilization.mean, 100 * s.utilization.std);
    text += line;
  }
  text += "\nverdicts:";
  for (const auto& [verdict, count] : s.verdict_counts) text += " " + verdict + " x" + std::to_string(count);
  return text + "\n";
}

}  // namespace libreyolo::core::profiler

#include "libreyolo/core/profiler/timeline_html.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "libreyolo/core/profiler/kernel_lanes.hpp"
#include "libreyolo/core/util/json_writer.hpp"
#include "timeline_html_page.hpp"

namespace libreyolo::core::profiler {
namespace {

void write_pairs(util::JsonWriter& json, std::string_view name, const TextPairs& pairs) {
  json.key(name).begin_array();
  for (const auto& [key, text] : pairs) json.begin_array(true).value(key).value(text).end_array();
  json.end_array();
}

// Kernels as [start_ms, duration_ms, lane, name index] rows, or, past the drawing cap, merged
// busy blocks as [start_ms, duration_ms, 0, -kernel count].
void write_kernel_rows(util::JsonWriter& json, const std::vector<DeviceEvent>& kernels) {
  json.key("kernels").begin_object();
  json.member("recorded", static_cast<std::int64_t>(kernels.size()));
  const bool merged = kernels.size() > kMaxDrawnKernels;
  json.member("merged", merged);
  if (merged) {
    double first = kernels.front().start_us, last = first;
    for (const auto& k : kernels) {
      first = std::min(first, k.start_us);
      last = std::max(last, k.start_us + k.duration_us);
    }
    std::vector<int> counts;
    // A gap under ~1/4000 of the window is below a pixel at any sensible page width.
    const auto blocks = merge_into_blocks(kernels, (last - first) / 4000.0, counts);
    json.key("names").begin_array(true).end_array();
    json.key("rows").begin_array();
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      json.begin_array(true)
          .value(blocks[i].start_us / 1000.0, 4)
          .value(blocks[i].duration_us / 1000.0, 4)
          .value(0)
          .value(-counts[i])
          .end_array();
    }
    json.end_array();
  } else {
    std::map<std::string, int> index;
    std::vector<const std::string*> names;
    for (const auto& k : kernels) {
      if (index.emplace(k.name, static_cast<int>(names.size())).second) names.push_back(&k.name);
    }
    json.key("names").begin_array();
    for (const auto* name : names) json.value(*name);
    json.end_array();
    const auto lanes = assign_lanes(kernels);
    json.key("rows").begin_array();
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      json.begin_array(true)
          .value(kernels[i].start_us / 1000.0, 4)
          .value(kernels[i].duration_us / 1000.0, 4)
          .value(lanes[i])
          .value(index[kernels[i].name])
          .end_array();
    }
    json.end_array();
  }
  json.end_object();
}

void write_page_data(std::ostream& out, const ProfileReport& r) {
  util::JsonWriter json(out);
  const auto& m = r.measures;
  json.begin_object();
  json.key("verdict").begin_object();
  json.member("name", verdict_name(r.verdict.kind));
  json.member("meaning", verdict_meaning(r.verdict.kind));
  json.member("reason", r.verdict.reason);
  json.member("trusted", r.verdict.utilization_trusted);
  json.key("levers").begin_array(true);
  for (const auto& lever : r.verdict.levers) json.value(lever);
  json.end_array();
  json.end_object();
  json.key("measures").begin_object();
  json.member("accelerator", m.accelerator);
  json.member("kernels_recorded", m.kernels_recorded);
  json.member("step_ms", m.step_wall_ms, 4);
  json.member("synchronized_step_ms", mean_step_ms(r.steps, true), 4);
  json.member("utilization", m.utilization, 6);
  json.member("data_wait_share", m.data_wait_share, 6);
  json.member("kernels_per_step", m.kernels_per_step, 2);
  json.member("mean_kernel_us", m.mean_kernel_us, 3);
  json.member("alloc_retries", static_cast<std::int64_t>(m.alloc_retries));
  // null on a CPU run (no device memory; the report's -1), which the page leaves out.
  const auto memory = [&json](const char* name, double value) {
    if (value < 0) json.key(name).null(); else json.member(name, value, 3);
  };
  memory("reserved_gb", r.reserved_gb);
  memory("device_total_gb", r.device_total_gb);
  json.member("skip", r.skip);
  json.member("first_half", r.first_half);
  // Distributed runs over NCCL (0 otherwise): communication a step and the part beside other kernels.
  json.member("communication_ms", r.communication_ms_per_step, 4);
  json.member("communication_overlapped_ms", r.communication_overlapped_ms_per_step, 4);
  json.end_object();
  write_pairs(json, "config", r.config);
  write_pairs(json, "environment", r.environment);
  json.key("phases").begin_array(true);
  for (int i = 0; i < kStepPhaseCount; ++i) json.value(to_string(static_cast<StepPhase>(i)));
  json.end_array();
  // Steps as [index, synchronised, start_ms, wall_ms, [[phase, start_ms, duration_ms], ...]].
  json.key("steps").begin_array();
  for (const auto& step : r.steps) {
    json.begin_array(true).value(step.index).value(step.synchronized).value(step.start_ms, 4).value(step.wall_ms, 4);
    json.begin_array();
    for (const auto& span : step.phases) {
      json.begin_array().value(static_cast<int>(span.phase)).value(span.start_ms, 4).value(span.duration_ms, 4).end_array();
    }
    json.end_array().end_array();
  }
  json.end_array();
  json.key("breakdown").begin_array();
  for (const auto& p : phase_breakdown(r.steps)) {
    json.begin_array(true).value(to_string(p.phase)).value(p.synchronized_ms, 4).value(p.share, 6).value(p.unsynchronized_ms, 4).end_array();
  }
  json.end_array();
  json.key("top").begin_array();
  for (std::size_t i = 0; i < std::min<std::size_t>(15, r.kernels.size()); ++i) {
    const auto& k = r.kernels[i];
    json.begin_array(true).value(k.name).value(static_cast<std::int64_t>(k.count)).value(k.total_us, 3).end_array();
  }
  json.end_array();
  json.member("kernel_events", static_cast<std::int64_t>(r.kernel_events));
  write_kernel_rows(json, r.kernel_timeline);
  json.end_object();
}

// JSON inside <script>: '<' only occurs inside JSON strings, where \u003c means the same, so no
// kernel name can close the element ("</script>") or open a comment.
std::string escaped_for_script(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (const char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

void write_timeline_html(std::ostream& out, const ProfileReport& report) {
  std::ostringstream data;
  write_page_data(data, report);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<title>LibreYOLO training profile: ";
  // The title is text, not markup.
  for (const char c : std::string(verdict_name(report.verdict.kind))) out << (c == '<' ? ' ' : c);
  out << "</title>\n<style>\n" << kTimelineStyle << "</style>\n</head>\n<body>\n<div id=\"app\"></div>\n"
      << "<script type=\"application/json\" id=\"profile-data\">\n"
      << escaped_for_script(data.str()) << "</script>\n<script>\n"
      << kTimelineScript << "</script>\n</body>\n</html>\n";
}

}  // namespace libreyolo::core::profiler

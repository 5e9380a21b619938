#include "libreyolo/core/profiler/chrome_trace.hpp"

#include <algorithm>
#include <string>

#include "libreyolo/core/profiler/kernel_lanes.hpp"
#include "libreyolo/core/util/json_writer.hpp"

namespace libreyolo::core::profiler {
namespace {

constexpr int kHostPid = 1, kGpuPid = 2;
constexpr int kStepTid = 1, kPhaseTid = 2;

void metadata(util::JsonWriter& json, const char* what, int pid, int tid, const std::string& name) {
  json.begin_object(true).member("name", what).member("ph", "M").member("pid", pid).member("tid", tid);
  json.key("args").begin_object(true).member("name", name).end_object();
  json.end_object();
}

void complete_event(util::JsonWriter& json, const std::string& name, const char* category, double ts_us, double dur_us,
                    int pid, int tid) {
  json.begin_object(true)
      .member("name", name)
      .member("cat", category)
      .member("ph", "X")
      .member("ts", ts_us, 3)
      .member("dur", dur_us, 3)
      .member("pid", pid)
      .member("tid", tid)
      .end_object();
}

}  // namespace

void write_chrome_trace(std::ostream& out, const ProfileReport& r) {
  util::JsonWriter json(out);
  json.begin_object();
  json.member("displayTimeUnit", "ms");
  json.key("otherData").begin_object();
  json.member("verdict", verdict_name(r.verdict.kind));
  json.member("reason", r.verdict.reason);
  json.member("kernel_clock", r.kernel_clock);
  for (const auto& [key, text] : r.config) json.member(key, text);
  json.end_object();

  json.key("traceEvents").begin_array();
  metadata(json, "process_name", kHostPid, 0, "host: training steps");
  metadata(json, "thread_name", kHostPid, kStepTid, "steps");
  metadata(json, "thread_name", kHostPid, kPhaseTid, "phases");
  for (const auto& step : r.steps) {
    const std::string name = "step " + std::to_string(step.index) + (step.synchronized ? " (synchronised)" : "");
    complete_event(json, name, "step", step.start_ms * 1000.0, step.wall_ms * 1000.0, kHostPid, kStepTid);
    for (const auto& span : step.phases) {
      complete_event(json, to_string(span.phase), "phase", span.start_ms * 1000.0, span.duration_ms * 1000.0, kHostPid,
                     kPhaseTid);
    }
  }
  if (!r.kernel_timeline.empty()) {
    metadata(json, "process_name", kGpuPid, 0, "GPU: kernels, copies, memsets (unsynchronised half)");
    const auto lanes = assign_lanes(r.kernel_timeline);
    int lane_count = 0;
    for (const int lane : lanes) lane_count = std::max(lane_count, lane + 1);
    for (int lane = 0; lane < lane_count; ++lane) {
      metadata(json, "thread_name", kGpuPid, lane + 1, "lane " + std::to_string(lane + 1));
    }
    for (std::size_t i = 0; i < r.kernel_timeline.size(); ++i) {
      const auto& k = r.kernel_timeline[i];
      complete_event(json, k.name, "kernel", k.start_us, k.duration_us, kGpuPid, lanes[i] + 1);
    }
  }
  json.end_array();
  json.end_object();
}

}  // namespace libreyolo::core::profiler

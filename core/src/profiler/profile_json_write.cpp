// Writes profile.json and profile_summary.json (formats: profile_json.hpp). Every number has a
// fixed precision: ms to 0.1 us, us to 1 ns, shares to 1e-6.
#include <algorithm>

#include "libreyolo/core/profiler/profile_json.hpp"
#include "libreyolo/core/util/json_writer.hpp"

namespace libreyolo::core::profiler {
namespace {

constexpr int kMs = 4, kUs = 3, kShare = 6;
constexpr std::size_t kSummaryKernels = 10;

// Device memory a CPU run does not have (the report's -1) is null, not a number nobody measured.
void memory_member(util::JsonWriter& json, std::string_view name, double value) {
  if (value < 0) json.key(name).null(); else json.member(name, value, kShare);
}

void write_pairs(util::JsonWriter& json, std::string_view name, const TextPairs& pairs) {
  json.key(name).begin_object();
  for (const auto& [key, text] : pairs) json.member(key, text);
  json.end_object();
}

void write_window(util::JsonWriter& json, const ProfileReport& r) {
  json.key("window").begin_object();
  json.member("skip", r.skip);
  json.member("steps", static_cast<int>(r.steps.size()));
  json.member("unsynchronized_steps", r.first_half);
  json.member("synchronized_steps", static_cast<int>(r.steps.size()) - r.first_half);
  json.member("unsynchronized_step_ms", mean_step_ms(r.steps, false), kMs);
  json.member("synchronized_step_ms", mean_step_ms(r.steps, true), kMs);
  json.end_object();
}

void write_measures(util::JsonWriter& json, const WindowMeasures& m) {
  json.key("measures").begin_object();
  json.member("accelerator", m.accelerator);
  json.member("kernels_recorded", m.kernels_recorded);
  json.member("steps", m.steps);
  json.member("step_wall_ms", m.step_wall_ms, kMs);
  json.member("utilization", m.utilization, kShare);
  json.member("data_wait_share", m.data_wait_share, kShare);
  json.member("kernels_per_step", m.kernels_per_step, kMs);
  json.member("mean_kernel_us", m.mean_kernel_us, kUs);
  json.member("alloc_retries", static_cast<std::int64_t>(m.alloc_retries));
  memory_member(json, "reserved_fraction", m.reserved_fraction);
  json.end_object();
}

void write_memory(util::JsonWriter& json, const ProfileReport& r) {
  json.key("memory").begin_object();
  memory_member(json, "reserved_gb", r.reserved_gb);
  memory_member(json, "device_total_gb", r.device_total_gb);
  json.end_object();
}

void write_verdict(util::JsonWriter& json, const Verdict& v) {
  json.key("verdict").begin_object();
  json.member("name", verdict_name(v.kind));
  json.member("meaning", verdict_meaning(v.kind));
  json.member("reason", v.reason);
  json.key("levers").begin_array(true);
  for (const auto& lever : v.levers) json.value(lever);
  json.end_array();
  json.member("utilization_trusted", v.utilization_trusted);
  json.end_object();
}

void write_steps(util::JsonWriter& json, const std::vector<StepRecord>& steps) {
  json.key("steps").begin_array();
  for (const auto& step : steps) {
    json.begin_object();
    json.member("index", step.index);
    json.member("synchronized", step.synchronized);
    json.member("start_ms", step.start_ms, kMs);
    json.member("wall_ms", step.wall_ms, kMs);
    json.key("phases").begin_array();
    for (const auto& span : step.phases) {
      json.begin_object(true)
          .member("phase", to_string(span.phase))
          .member("start_ms", span.start_ms, kMs)
          .member("duration_ms", span.duration_ms, kMs)
          .end_object();
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
}

void write_phase_breakdown(util::JsonWriter& json, const std::vector<StepRecord>& steps) {
  json.key("phase_breakdown").begin_array();
  for (const auto& share : phase_breakdown(steps)) {
    json.begin_object(true)
        .member("phase", to_string(share.phase))
        .member("synchronized_ms", share.synchronized_ms, kMs)
        .member("share", share.share, kShare)
        .member("unsynchronized_ms", share.unsynchronized_ms, kMs)
        .end_object();
  }
  json.end_array();
}

void write_kernels(util::JsonWriter& json, const ProfileReport& r, std::size_t limit) {
  json.key("kernels").begin_object();
  json.member("events", static_cast<std::int64_t>(r.kernel_events));
  json.member("busy_us", r.kernel_busy_us, kUs);
  json.member("clock", r.kernel_clock);
  json.key("by_name").begin_array();
  for (std::size_t i = 0; i < std::min(limit, r.kernels.size()); ++i) {
    const auto& k = r.kernels[i];
    json.begin_object(true)
        .member("name", k.name)
        .member("count", static_cast<std::int64_t>(k.count))
        .member("total_us", k.total_us, kUs)
        .end_object();
  }
  json.end_array();
  json.end_object();
}

// Distributed runs over NCCL only: a single-GPU or CPU profile has no such member.
void write_communication(util::JsonWriter& json, const ProfileReport& r) {
  if (r.communication_kernels_per_step <= 0) return;
  json.key("communication").begin_object();
  json.member("kernels_per_step", r.communication_kernels_per_step, kMs);
  json.member("ms_per_step", r.communication_ms_per_step, kMs);
  json.member("overlapped_ms_per_step", r.communication_overlapped_ms_per_step, kMs);
  json.end_object();
}

}  // namespace

void write_profile_json(std::ostream& out, const ProfileReport& r) {
  util::JsonWriter json(out);
  json.begin_object();
  json.member("format", "libreyolo-profile");
  json.member("version", kProfileFormatVersion);
  write_pairs(json, "config", r.config);
  write_pairs(json, "environment", r.environment);
  write_window(json, r);
  write_verdict(json, r.verdict);
  write_measures(json, r.measures);
  write_memory(json, r);
  write_phase_breakdown(json, r.steps);
  write_kernels(json, r, r.kernels.size());
  write_communication(json, r);
  write_steps(json, r.steps);
  json.end_object();
}

void write_profile_summary_json(std::ostream& out, const ProfileReport& r) {
  util::JsonWriter json(out);
  json.begin_object();
  json.member("format", "libreyolo-profile-summary");
  json.member("version", kProfileFormatVersion);
  write_verdict(json, r.verdict);
  write_window(json, r);
  write_measures(json, r.measures);
  write_memory(json, r);
  write_phase_breakdown(json, r.steps);
  write_kernels(json, r, kSummaryKernels);
  write_communication(json, r);
  json.end_object();
}

}  // namespace libreyolo::core::profiler

// Reads profile.json back with yaml-cpp (YAML is a superset of JSON, and the project links it
// already): only what write_profile_json wrote, with an Error naming the file otherwise.
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/profiler/profile_json.hpp"

namespace libreyolo::core::profiler {
namespace {

StepPhase parse_phase(const std::string& name) {
  for (int i = 0; i < kStepPhaseCount; ++i) {
    if (name == to_string(static_cast<StepPhase>(i))) return static_cast<StepPhase>(i);
  }
  throw std::runtime_error("unknown phase '" + name + "'");
}

TextPairs read_pairs(const YAML::Node& node) {
  TextPairs pairs;
  for (const auto& entry : node) pairs.emplace_back(entry.first.as<std::string>(), entry.second.as<std::string>());
  return pairs;
}

// A number that the writer may have written as null (non-finite).
double number(const YAML::Node& node) {
  return node.IsNull() ? 0.0 : node.as<double>();
}

// Device memory, null where the run had none (a CPU run): the report's "unknown", -1.
double memory_number(const YAML::Node& node) { return node.IsNull() ? -1.0 : node.as<double>(); }

WindowMeasures read_measures(const YAML::Node& n) {
  WindowMeasures m;
  m.accelerator = n["accelerator"].as<bool>();
  m.kernels_recorded = n["kernels_recorded"].as<bool>();
  m.steps = n["steps"].as<int>();
  m.step_wall_ms = number(n["step_wall_ms"]);
  m.utilization = number(n["utilization"]);
  m.data_wait_share = number(n["data_wait_share"]);
  m.kernels_per_step = number(n["kernels_per_step"]);
  m.mean_kernel_us = number(n["mean_kernel_us"]);
  m.alloc_retries = n["alloc_retries"].as<std::int64_t>();
  m.reserved_fraction = memory_number(n["reserved_fraction"]);
  return m;
}

Verdict read_verdict(const YAML::Node& n) {
  Verdict v;
  v.kind = parse_verdict_name(n["name"].as<std::string>());
  v.reason = n["reason"].as<std::string>();
  for (const auto& lever : n["levers"]) v.levers.push_back(lever.as<std::string>());
  v.utilization_trusted = n["utilization_trusted"].as<bool>();
  return v;
}

std::vector<StepRecord> read_steps(const YAML::Node& n) {
  std::vector<StepRecord> steps;
  for (const auto& s : n) {
    StepRecord step;
    step.index = s["index"].as<int>();
    step.synchronized = s["synchronized"].as<bool>();
    step.start_ms = number(s["start_ms"]);
    step.wall_ms = number(s["wall_ms"]);
    for (const auto& p : s["phases"]) {
      step.phases.push_back({parse_phase(p["phase"].as<std::string>()), number(p["start_ms"]), number(p["duration_ms"])});
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

ProfileReport read_report(const YAML::Node& root) {
  ProfileReport r;
  r.config = read_pairs(root["config"]);
  r.environment = read_pairs(root["environment"]);
  r.skip = root["window"]["skip"].as<int>();
  r.first_half = root["window"]["unsynchronized_steps"].as<int>();
  r.verdict = read_verdict(root["verdict"]);
  r.measures = read_measures(root["measures"]);
  r.reserved_gb = memory_number(root["memory"]["reserved_gb"]);
  r.device_total_gb = memory_number(root["memory"]["device_total_gb"]);
  const auto kernels = root["kernels"];
  r.kernel_events = kernels["events"].as<std::int64_t>();
  r.kernel_busy_us = number(kernels["busy_us"]);
  r.kernel_clock = kernels["clock"].as<std::string>();
  for (const auto& k : kernels["by_name"]) {
    r.kernels.push_back({k["name"].as<std::string>(), k["count"].as<std::int64_t>(), number(k["total_us"])});
  }
  if (const auto communication = root["communication"]) {  // distributed runs over NCCL only
    r.communication_kernels_per_step = number(communication["kernels_per_step"]);
    r.communication_ms_per_step = number(communication["ms_per_step"]);
    r.communication_overlapped_ms_per_step = number(communication["overlapped_ms_per_step"]);
  }
  r.steps = read_steps(root["steps"]);
  return r;
}

}  // namespace

ProfileReport read_profile_json(const std::filesystem::path& file) {
  if (!std::filesystem::is_regular_file(file)) {
    throw Error("no profile at " + file.string(), "the file does not exist",
                "pass the profile.json that `profile run` or train profile=true wrote (in <run>/prof/)");
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw Error("cannot read " + file.string(), std::string("it is not valid JSON: ") + e.what(),
                "pass a profile.json written by libreyolo-host");
  }
  if (!root.IsMap() || !root["format"] || root["format"].as<std::string>() != "libreyolo-profile") {
    throw Error(file.string() + " is not a profile", "it has no \"format\": \"libreyolo-profile\"",
                "pass profile.json, not profile_summary.json or profile_trace.json");
  }
  const int version = root["version"].as<int>();
  if (version > kProfileFormatVersion) {
    throw Error(file.string() + " has profile format " + std::to_string(version),
                "this libreyolo-host reads format " + std::to_string(kProfileFormatVersion) + " and older",
                "read it with a newer libreyolo-host");
  }
  try {
    return read_report(root);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error("cannot read " + file.string(), std::string("a field is missing or malformed: ") + e.what(),
                "pass a profile.json written by libreyolo-host");
  }
}

}  // namespace libreyolo::core::profiler

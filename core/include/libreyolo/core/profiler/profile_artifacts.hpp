#pragma once
// Writes a profiled window's four artifacts into one folder (created if needed):
// timeline.html, profile_trace.json, profile_summary.json and profile.json.

#include <filesystem>

#include "libreyolo/core/profiler/profile_report.hpp"

namespace libreyolo::core::profiler {

// Throws core::Error naming the file that could not be written.
void write_profile_artifacts(const ProfileReport& report, const std::filesystem::path& folder);

}  // namespace libreyolo::core::profiler

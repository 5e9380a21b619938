#pragma once
// profile.json (everything a later `profile summary|phases|kernels` needs, self-contained, so
// the file can be copied to another machine) and profile_summary.json (the verdict and the
// numbers behind it, for scripts). read_profile_json() reads profile.json back.

#include <filesystem>
#include <ostream>

#include "libreyolo/core/profiler/profile_report.hpp"

namespace libreyolo::core::profiler {

// The format written; a reader refuses newer formats.
constexpr int kProfileFormatVersion = 1;

void write_profile_json(std::ostream& out, const ProfileReport& report);
void write_profile_summary_json(std::ostream& out, const ProfileReport& report);

// Everything write_profile_json wrote (kernel_timeline stays empty). Throws core::Error naming
// the file when it is missing, not JSON, or not a profile.
ProfileReport read_profile_json(const std::filesystem::path& file);

}  // namespace libreyolo::core::profiler

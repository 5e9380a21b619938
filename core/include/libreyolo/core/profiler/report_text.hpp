#pragma once
// The profiler's report as text: what train profile=true prints when the window is measured,
// and what `profile summary|phases|kernels FILE` print from a saved profile.json.

#include <cstddef>
#include <string>

#include "libreyolo/core/profiler/profile_report.hpp"

namespace libreyolo::core::profiler {

// The window, the numbers, the phase table, the top kernels and the verdict with its levers.
std::string format_report(const ProfileReport& report);

// The window's numbers and the verdict.
std::string format_summary(const ProfileReport& report);

// Mean time per phase, synchronised half (attribution) next to the unsynchronised half.
std::string format_phases(const ProfileReport& report);

// The `top` kernels by total GPU time in the unsynchronised half.
std::string format_kernels(const ProfileReport& report, std::size_t top);

}  // namespace libreyolo::core::profiler

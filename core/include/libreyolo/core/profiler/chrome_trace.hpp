#pragma once
// profile_trace.json in the Chrome trace event format (Perfetto, chrome://tracing, Nsight's
// importer): one complete ("X") event per recorded kernel, copy and memset on a GPU process,
// and the steps and their phases on a host process. Timestamps in microseconds from the
// window's origin.

#include <ostream>

#include "libreyolo/core/profiler/profile_report.hpp"

namespace libreyolo::core::profiler {

void write_chrome_trace(std::ostream& out, const ProfileReport& report);

}  // namespace libreyolo::core::profiler

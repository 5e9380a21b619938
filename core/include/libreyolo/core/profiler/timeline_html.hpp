#pragma once
// timeline.html: one self-contained page (inline CSS and JavaScript, the data embedded, no
// network) that shows the verdict and its levers, per-step phase bars, and the window's host
// phases above the GPU's kernel lanes. At most kMaxDrawnKernels kernels are drawn one by one;
// a busier window is drawn as merged busy blocks (the trace file keeps every kernel).

#include <cstddef>
#include <ostream>

#include "libreyolo/core/profiler/profile_report.hpp"

namespace libreyolo::core::profiler {

constexpr std::size_t kMaxDrawnKernels = 5000;

void write_timeline_html(std::ostream& out, const ProfileReport& report);

}  // namespace libreyolo::core::profiler

#pragma once
// The static parts of timeline.html: its stylesheet and the script that draws the embedded
// data (element #profile-data). Private to core/src/profiler/.

namespace libreyolo::core::profiler {

extern const char* const kTimelineStyle;
extern const char* const kTimelineScript;

}  // namespace libreyolo::core::profiler

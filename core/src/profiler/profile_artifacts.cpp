#include "libreyolo/core/profiler/profile_artifacts.hpp"

#include <fstream>
#include <functional>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/profiler/chrome_trace.hpp"
#include "libreyolo/core/profiler/profile_json.hpp"
#include "libreyolo/core/profiler/timeline_html.hpp"

namespace libreyolo::core::profiler {
namespace {

void write_file(const std::filesystem::path& file, const std::function<void(std::ostream&)>& body) {
  std::ofstream out(file, std::ios::binary);
  if (out) body(out);
  out.flush();
  if (!out) throw Error("cannot write " + file.string(), "the file could not be created or written", "check the disk and permissions");
}

}  // namespace

void write_profile_artifacts(const ProfileReport& report, const std::filesystem::path& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw Error("cannot create " + folder.string(), error.message(), "check the disk and permissions");
  write_file(folder / "profile.json", [&](std::ostream& out) { write_profile_json(out, report); });
  write_file(folder / "profile_summary.json", [&](std::ostream& out) { write_profile_summary_json(out, report); });
  write_file(folder / "profile_trace.json", [&](std::ostream& out) { write_chrome_trace(out, report); });
  write_file(folder / "timeline.html", [&](std::ostream& out) { write_timeline_html(out, report); });
}

}  // namespace libreyolo::core::profiler

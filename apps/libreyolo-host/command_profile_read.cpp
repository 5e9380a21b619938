// `profile summary|phases|kernels FILE [--top N]`: prints from a saved profile.json.

#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/profiler/profile_json.hpp"
#include "libreyolo/core/profiler/report_text.hpp"

namespace libreyolo::app {
namespace {

namespace fs = std::filesystem;

// A profile.json, or a folder that holds one directly or in prof/.
fs::path locate_profile(const fs::path& given) {
  if (!fs::is_directory(given)) return given;
  for (const auto& candidate : {given / "profile.json", given / "prof" / "profile.json"}) {
    if (fs::is_regular_file(candidate)) return candidate;
  }
  return given / "profile.json";  // read_profile_json says it is missing
}

std::size_t parse_top(const std::string& text) {
  try {
    std::size_t used = 0;
    const long value = std::stol(text, &used);
    if (used == text.size() && value > 0) return static_cast<std::size_t>(value);
  } catch (const std::exception&) {
  }
  throw core::Error("--top " + text + " is not a positive integer", "it is how many kernels to list", "pass --top 10");
}

}  // namespace

int run_profile_read(const std::string& view, const Args& args) {
  std::string file;
  std::size_t top = 10;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& arg = args[i];
    if (view == "kernels" && (arg == "--top" || arg == "top") && i + 1 < args.size()) {
      top = parse_top(args[++i]);
    } else if (view == "kernels" && (arg.rfind("--top=", 0) == 0 || arg.rfind("top=", 0) == 0)) {
      top = parse_top(arg.substr(arg.find('=') + 1));
    } else if (file.empty() && arg.rfind("-", 0) != 0) {
      file = arg;
    } else {
      throw core::Error("unexpected argument '" + arg + "' for profile " + view,
                        "profile " + view + " takes one FILE" + (view == "kernels" ? " and --top N" : ""),
                        "run 'libreyolo-host profile help'");
    }
  }
  if (file.empty()) {
    throw core::Error("profile " + view + " needs a FILE", "no profile.json was named",
                      "pass the profile.json that profile run or train profile=true wrote (in <run>/prof/)");
  }
  const auto report = core::profiler::read_profile_json(locate_profile(file));
  if (view == "summary") std::cout << core::profiler::format_summary(report);
  if (view == "phases") std::cout << core::profiler::format_phases(report);
  if (view == "kernels") std::cout << core::profiler::format_kernels(report, top);
  return kExitOk;
}

}  // namespace libreyolo::app

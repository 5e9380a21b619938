// The downloader of a build without libcurl (LIBREYOLO_DOWNLOADS=OFF, or the GPU machine without
// its dev package): resolve_weights sees downloader_available() == false and tells the user
// where to put the file instead.

#include "libreyolo/core/weights/download.hpp"

namespace libreyolo::core::weights {

bool downloader_available() { return false; }

std::string downloader_description() { return "none (built without libcurl)"; }

DownloadOutcome download_file(const std::string&, const std::filesystem::path&) {
  return {false, "this build has no downloader (it was built without libcurl)", false, std::nullopt};
}

}  // namespace libreyolo::core::weights

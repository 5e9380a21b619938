#pragma once
// model=NAME.pt to a file on disk, as LibreYOLO resolves weight names: the name as given, then
// the search places (weights_search.hpp), then a download of a name LibreYOLO publishes into
// the cache folder. Every way this can fail is a core::Error that names the places looked in,
// the URL, and what to do (docs/weights.md).

#include <filesystem>
#include <functional>
#include <string>

#include "libreyolo/core/weights/download.hpp"
#include "libreyolo/core/weights/weights_environment.hpp"

namespace libreyolo::core::weights {

// model= values that name a checkpoint file rather than a family and size: *.pt, *.pth.
bool looks_like_checkpoint(const std::string& model);

struct ResolvedWeights {
  std::filesystem::path file;
  // How it was found, for one log line; empty when `model` was an existing path as given.
  std::string how;
};

// Downloads url to a destination; download_file in the host, a fake in tests.
struct Downloader {
  bool available = false;
  std::function<DownloadOutcome(const std::string& url, const std::filesystem::path& destination)> fetch;
};
Downloader system_downloader();

ResolvedWeights resolve_weights(const std::string& model, const WeightsEnvironment& env, const Downloader& downloader);

}  // namespace libreyolo::core::weights

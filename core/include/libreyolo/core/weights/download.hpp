#pragma once
// One file over HTTP(S), safely: into `<destination>.part`, renamed to `destination` only once
// complete (the byte count checked against the server's Content-Length), a leftover .part
// resumed with a Range request when the server allows it, a progress bar on stderr. Built on
// libcurl; a build without it (LIBREYOLO_DOWNLOADS=OFF, or no libcurl found) has a stand-in
// whose downloader_available() is false.

#include <filesystem>
#include <optional>
#include <string>

namespace libreyolo::core::weights {

struct DownloadOutcome {
  bool ok = false;
  std::string failure;                  // why not, for the user: "the server answered HTTP 404 (Not Found)"
  bool partial_kept = false;            // a .part with some bytes is left to resume next time
  std::optional<long> http_status;      // the final response's status, when one came
};

// False in a build without libcurl: download_file then always fails.
bool downloader_available();
// "libcurl 7.88.1 (OpenSSL/3.0.11)" or "none (built without libcurl)", for `version`.
std::string downloader_description();

// Downloads `url` to `destination` (its folder must exist). Concurrent calls for the same
// destination (several ranks on one machine) download once: the others wait on a lock on the
// .part file and then find the finished file.
DownloadOutcome download_file(const std::string& url, const std::filesystem::path& destination);

}  // namespace libreyolo::core::weights

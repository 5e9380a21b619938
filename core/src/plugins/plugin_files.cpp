#include "libreyolo/core/plugins/plugin_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace fs = std::filesystem;

namespace libreyolo::core::plugins {
namespace {

// Why this folder entry named like a plugin cannot be one, or "" when it is a plugin file;
// `is_plugin` is false for entries that are silently not plugins (a folder named x.so).
std::string examine(const fs::path& path, bool& is_plugin) {
  is_plugin = false;
  std::error_code ec;
  const auto status = fs::status(path, ec);  // follows links: a loop fails here (ELOOP)
  if (status.type() == fs::file_type::not_found) {
    return "it is a symbolic link to a file that does not exist";
  }
  if (ec) return "it cannot be examined: " + ec.message();
  if (status.type() != fs::file_type::regular) return "";
  // Opened for reading, not just stat'ed: a file the host may not read would otherwise be
  // refused later as "not a loadable shared library", which hides the real reason.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::string("it cannot be read: ") + std::strerror(errno);
  ::close(fd);
  is_plugin = true;
  return "";
}

void list_folder(const fs::path& dir, PluginFiles& found) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> files;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    found.problems.push_back({dir, "the plugin folder cannot be listed: " + ec.message()});
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path path = it->path();
    if (path.extension() != ".so") continue;
    bool is_plugin = false;
    if (auto problem = examine(path, is_plugin); !problem.empty()) {
      found.problems.push_back({path, problem});
    } else if (is_plugin) {
      files.push_back(path);
    }
  }
  if (ec) found.problems.push_back({dir, "the plugin folder could not be listed to its end: " + ec.message()});
  std::sort(files.begin(), files.end());
  found.files.insert(found.files.end(), files.begin(), files.end());
}

}  // namespace

PluginFiles find_plugin_files(const std::vector<fs::path>& dirs) {
  PluginFiles found;
  for (const auto& dir : dirs) list_folder(dir, found);
  return found;
}

}  // namespace libreyolo::core::plugins

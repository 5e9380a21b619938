#pragma once
// How the host loads plugins: each plugin file is first scanned in a child process
// (libreyolo-plugin-scanner, plugin_scan.hpp), unless the plugin registry cache already holds
// the verdict for the file as it is now; only files the scanner approved are loaded into the
// host. Docs: reliability.md, "Plugins that crash or hang".

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "libreyolo/core/plugins/family_registry.hpp"

namespace libreyolo::core::plugins {

struct IsolationSettings {
  std::filesystem::path scanner;   // empty: no isolation, plugins load straight into the host
  std::string without_scanner;     // why there is none, warned once when loading (empty: asked for)
  double timeout_s = 10;           // a scan taking longer is a hung plugin
  std::filesystem::path cache_file;  // empty: nothing cached, every run scans
};

// From the environment: LIBREYOLO_PLUGIN_SCANNER (the scanner's path, or "off" for no
// isolation; default: libreyolo-plugin-scanner next to the host), LIBREYOLO_PLUGIN_SCAN_TIMEOUT
// (seconds), XDG_CACHE_HOME or HOME for the cache.
IsolationSettings isolation_settings(const std::filesystem::path& executable_dir,
                                     const std::function<const char*(const char*)>& getenv);

// The registry of the plugins in `dirs`: entries that cannot be plugins, plugins the scanner
// refused (with its reason, "crashed ..." / "hung ..." / "exited ..." included) and the ones
// it approved, loaded here (where a duplicate family name is still refused).
FamilyRegistry load_plugins_isolated(const std::vector<std::filesystem::path>& dirs,
                                     const IsolationSettings& settings);

}  // namespace libreyolo::core::plugins

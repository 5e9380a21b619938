#pragma once
// The plugin files of the plugin folders, and the entries that cannot be plugins for a reason
// a user should hear (a symbolic-link loop, a link to nothing, a file that cannot be read, a
// folder that cannot be listed). Those are reported, one each, never thrown: one bad entry must
// not stop the host from loading the others.

#include <filesystem>
#include <vector>

#include "libreyolo/core/plugins/family_registry.hpp"

namespace libreyolo::core::plugins {

struct PluginFiles {
  std::vector<std::filesystem::path> files;  // *.so regular files, sorted within each folder
  std::vector<RefusedPlugin> problems;
};

// Folders that do not exist are skipped without a word (the default ones often do not);
// the command line's own folder is checked by the caller.
PluginFiles find_plugin_files(const std::vector<std::filesystem::path>& dirs);

}  // namespace libreyolo::core::plugins

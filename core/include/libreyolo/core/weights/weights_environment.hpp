#pragma once
// The environment variables that steer finding and downloading weights, read once
// (docs/weights.md): LIBREYOLO_WEIGHTS, LIBREYOLO_OFFLINE, LIBREYOLO_WEIGHTS_URL,
// XDG_CACHE_HOME and HOME.

#include <filesystem>
#include <functional>
#include <string>

namespace libreyolo::core::weights {

struct WeightsEnvironment {
  std::filesystem::path working_folder;  // where relative names are looked up first
  std::filesystem::path weights_folder;  // $LIBREYOLO_WEIGHTS; empty when unset
  std::filesystem::path cache_folder;    // $XDG_CACHE_HOME/libreyolo, else ~/.cache/libreyolo; empty without both
  std::string base_url;                  // $LIBREYOLO_WEIGHTS_URL, else LibreYOLO's Hugging Face organisation
  bool offline = false;                  // LIBREYOLO_OFFLINE set to anything but "", 0, false, no, off
};

// Reads the variables through `getenv` (std::getenv in the host, a map in tests) and
// `working_folder`.
WeightsEnvironment read_weights_environment(const std::function<const char*(const char*)>& getenv,
                                            std::filesystem::path working_folder);
// The same from this process's environment and current folder.
WeightsEnvironment process_weights_environment();

// $XDG_CACHE_HOME/libreyolo, else $HOME/.cache/libreyolo; empty when neither is set.
std::filesystem::path libreyolo_cache_folder(const char* xdg_cache_home, const char* home);

}  // namespace libreyolo::core::weights

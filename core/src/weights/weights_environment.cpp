#include "libreyolo/core/weights/weights_environment.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "libreyolo/core/weights/weight_names.hpp"

namespace libreyolo::core::weights {
namespace {

std::string value_of(const std::function<const char*(const char*)>& getenv, const char* name) {
  const char* value = getenv(name);
  return value ? std::string(value) : std::string();
}

// Set means set: LIBREYOLO_OFFLINE=1, =true, =yes. The usual spellings of "no" turn it off, so
// that LIBREYOLO_OFFLINE=0 does not surprise anyone by forbidding downloads.
bool truthy(std::string value) {
  std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
  return !(value.empty() || value == "0" || value == "false" || value == "no" || value == "off");
}

}  // namespace

std::filesystem::path libreyolo_cache_folder(const char* xdg_cache_home, const char* home) {
  if (xdg_cache_home && *xdg_cache_home) return std::filesystem::path(xdg_cache_home) / "libreyolo";
  if (home && *home) return std::filesystem::path(home) / ".cache" / "libreyolo";
  return {};
}

WeightsEnvironment read_weights_environment(const std::function<const char*(const char*)>& getenv,
                                            std::filesystem::path working_folder) {
  WeightsEnvironment env;
  env.working_folder = std::move(working_folder);
  env.weights_folder = value_of(getenv, "LIBREYOLO_WEIGHTS");
  env.cache_folder = libreyolo_cache_folder(getenv("XDG_CACHE_HOME"), getenv("HOME"));
  env.base_url = value_of(getenv, "LIBREYOLO_WEIGHTS_URL");
  if (env.base_url.empty()) env.base_url = std::string(kDefaultWeightsBaseUrl);
  env.offline = truthy(value_of(getenv, "LIBREYOLO_OFFLINE"));
  return env;
}

WeightsEnvironment process_weights_environment() {
  std::error_code ec;
  auto here = std::filesystem::current_path(ec);
  if (ec) here = ".";
  return read_weights_environment([](const char* name) { return std::getenv(name); }, here);
}

}  // namespace libreyolo::core::weights

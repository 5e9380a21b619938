#include "libreyolo/core/plugins/plugin_loader.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <exception>
#include <map>
#include <mutex>
#include <sstream>

#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/plugin_files.hpp"
#include "libreyolo/sdk/abi.hpp"
#include "libreyolo/sdk/registration.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::plugins {
namespace {

// Loaded libraries stay loaded for the life of the process (see family_registry.hpp).
std::vector<boost::dll::shared_library>& resident_libraries() {
  static std::vector<boost::dll::shared_library> libraries;
  return libraries;
}
std::mutex resident_mutex;

std::map<std::string, std::string> stamp_fields(const std::string& stamp) {
  std::map<std::string, std::string> fields;
  std::istringstream in(stamp);
  std::string item;
  while (std::getline(in, item, ';')) {
    const auto eq = item.find('=');
    fields[item.substr(0, eq)] = eq == std::string::npos ? "" : item.substr(eq + 1);
  }
  return fields;
}

}  // namespace

const char* host_abi_stamp() { return LIBREYOLO_ABI_STAMP; }

std::optional<std::string> abi_mismatch(const std::string& plugin_stamp,
                                        const std::string& host_stamp) {
  if (plugin_stamp == host_stamp) return std::nullopt;
  const auto plugin = stamp_fields(plugin_stamp);
  const auto host = stamp_fields(host_stamp);
  std::string differences;
  for (const auto& [key, expected] : host) {
    auto it = plugin.find(key);
    const std::string got = it == plugin.end() ? "(missing)" : it->second;
    if (got != expected) {
      differences += (differences.empty() ? "" : ", ") + key + " " + got + " (host: " + expected + ")";
    }
  }
  if (differences.empty()) differences = "stamp '" + plugin_stamp + "'";
  return "built against " + plugin_stamp + ", this host expects " + host_stamp +
         " [differs: " + differences +
         "]; rebuild the plugin against this host's SDK (find_package(LibreYOLO) from this "
         "install)";
}

fs::path executable_dir() {
  return fs::path(boost::dll::program_location().parent_path().string());
}

std::vector<fs::path> plugin_search_path(const std::vector<fs::path>& explicit_dirs,
                                         const char* env_value, const fs::path& exe_dir) {
  std::vector<fs::path> dirs = explicit_dirs;
  if (env_value) {
    std::istringstream in(env_value);
    std::string dir;
    while (std::getline(in, dir, ':')) {
      if (!dir.empty()) dirs.emplace_back(dir);
    }
  }
  dirs.push_back(exe_dir / "lib" / "libreyolo" / "families");
  dirs.push_back(exe_dir.parent_path() / "lib" / "libreyolo" / "families");
  dirs.push_back(exe_dir.parent_path() / LIBREYOLO_INSTALL_LIBDIR / "libreyolo" / "families");  // lib64/, lib/<triplet>/
  std::vector<fs::path> unique;
  for (auto& dir : dirs) {
    std::error_code ec;
    auto canonical = fs::weakly_canonical(dir, ec);
    const auto& key = ec ? dir : canonical;
    if (std::find(unique.begin(), unique.end(), key) == unique.end()) unique.push_back(key);
  }
  return unique;
}

void load_plugin(const fs::path& file, FamilyRegistry& registry) {
  boost::dll::shared_library library;
  try {
    // rtld_now: an unresolved symbol fails here with a message instead of crashing later.
    library.load(file.string(), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    registry.refuse({file, std::string("it is not a loadable shared library (") + e.what() + ")"});
    return;
  }
  for (const char* symbol : {LIBREYOLO_FAMILY_ABI_STAMP_SYMBOL, LIBREYOLO_FAMILY_CREATE_SYMBOL}) {
    if (!library.has(symbol)) {
      registry.refuse({file, std::string("it does not export ") + symbol +
                                 " (is it a family plugin? families register with "
                                 "LIBREYOLO_REGISTER_FAMILY)"});
      return;
    }
  }
  const char* stamp = library.get<const char*()>(LIBREYOLO_FAMILY_ABI_STAMP_SYMBOL)();
  if (auto mismatch = abi_mismatch(stamp ? stamp : "", host_abi_stamp())) {
    registry.refuse({file, "ABI mismatch: " + *mismatch});
    return;
  }
  LoadedFamily loaded;
  try {
    std::shared_ptr<sdk::Family> family(
        library.get<sdk::Family*()>(LIBREYOLO_FAMILY_CREATE_SYMBOL)());
    if (!family) throw std::runtime_error("its factory returned no family");
    loaded.info = family->info();
    loaded.policy = family->policy();
    if (auto problem = sdk::validate(loaded.info); !problem.empty()) {
      throw std::runtime_error(problem);
    }
    loaded.family = std::move(family);
  } catch (const std::exception& e) {
    registry.refuse({file, std::string("it failed while registering: ") + e.what()});
    return;
  } catch (...) {
    registry.refuse({file, "it failed while registering with a non-standard exception"});
    return;
  }
  loaded.file = file;
  registry.add(std::move(loaded));  // a duplicate name is refused inside, with a warning
  // Keep the code mapped either way: a refused duplicate's Family object was just destroyed
  // by plugin code, and unloading libraries that registered LibTorch operators is unsafe.
  std::lock_guard<std::mutex> lock(resident_mutex);
  resident_libraries().push_back(std::move(library));
}

FamilyRegistry load_plugins(const std::vector<fs::path>& dirs) {
  FamilyRegistry registry;
  const auto found = find_plugin_files(dirs);
  for (const auto& problem : found.problems) registry.refuse(problem);
  for (const auto& file : found.files) {
    log::debug("loading plugin ", file.string());
    load_plugin(file, registry);
  }
  return registry;
}

}  // namespace libreyolo::core::plugins

#include "libreyolo/core/plugins/plugin_isolation.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <thread>

#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/plugin_files.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/plugins/plugin_registry_cache.hpp"
#include "libreyolo/core/plugins/plugin_scan.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::plugins {
namespace {

constexpr const char* kScannerName = "libreyolo-plugin-scanner";

double scan_timeout(const char* text) {
  constexpr double kDefault = 10;
  if (!text || !*text) return kDefault;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (end && *end == '\0' && seconds > 0) return seconds;
  log::warn("LIBREYOLO_PLUGIN_SCAN_TIMEOUT='", text, "' is not a positive number of seconds; using ", kDefault);
  return kDefault;
}

// The verdicts cannot outlive what they were made by: another host ABI or another scanner
// binary (a rebuilt one may check differently) starts the cache afresh.
std::string cache_identity(const fs::path& scanner) {
  const auto stamp = data::stamp_file(scanner);
  return std::string("host ") + host_abi_stamp() + "; scanner " + std::to_string(stamp.size) + " " +
         std::to_string(stamp.mtime);
}

// Scans the files in parallel (as many at a time as there are cores, at least 2, at most 8):
// each scan is a process that spends much of its time waiting for the dynamic loader.
// nullopt for a file whose scanner could not be started (`error` says why).
std::vector<std::optional<ScanVerdict>> scan_files(const std::vector<fs::path>& files,
                                                   const IsolationSettings& settings, std::string& error) {
  std::vector<std::optional<ScanVerdict>> verdicts(files.size());
  std::vector<std::string> errors(files.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < files.size();) {
      if (auto end = run_scanner(settings.scanner, files[i], settings.timeout_s, errors[i])) {
        verdicts[i] = classify_scan(*end);
      }
    }
  };
  const unsigned cores = std::thread::hardware_concurrency();
  const std::size_t workers = std::min<std::size_t>(files.size(), std::max(2u, std::min(8u, cores)));
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (auto& thread : threads) thread.join();
  for (const auto& e : errors) {
    if (!e.empty()) error = e;
  }
  return verdicts;
}

// The verdict of every file: the cache's when the file's stamp is the recorded one, else a
// scan's (then recorded in the cache). nullopt when the scanner could not be started.
std::optional<std::vector<ScanVerdict>> verdicts_for(const std::vector<fs::path>& files,
                                                     const IsolationSettings& settings, PluginRegistryCache& cache,
                                                     std::size_t& scanned, std::string& error) {
  std::vector<std::optional<ScanVerdict>> verdicts(files.size());
  std::vector<data::FileStamp> stamps(files.size());
  std::vector<fs::path> to_scan;
  for (std::size_t i = 0; i < files.size(); ++i) {
    stamps[i] = data::stamp_file(files[i]);
    if (const auto* cached = cache.find(files[i], stamps[i])) {
      log::debug("plugin ", files[i].string(), ": ", to_string(cached->outcome), " (from the plugin registry cache)");
      verdicts[i] = *cached;
    } else {
      log::debug("plugin ", files[i].string(), ": scanning it in a child process");
      to_scan.push_back(files[i]);
    }
  }
  auto fresh = scan_files(to_scan, settings, error);
  if (!error.empty()) return std::nullopt;
  scanned = to_scan.size();
  std::vector<ScanVerdict> result;
  for (std::size_t i = 0, s = 0; i < files.size(); ++i) {
    if (!verdicts[i]) {
      verdicts[i] = fresh[s++];
      log::debug("plugin ", files[i].string(), ": ", to_string(verdicts[i]->outcome), " (scanned)");
      if (verdicts[i]->remember) cache.record(files[i], stamps[i], *verdicts[i]);
    }
    result.push_back(*verdicts[i]);
  }
  return result;
}

void apply_verdict(const fs::path& file, const ScanVerdict& verdict, const fs::path& cache_file,
                   FamilyRegistry& registry) {
  if (verdict.outcome == ScanOutcome::approved) {
    load_plugin(file, registry);
    return;
  }
  std::string reason = verdict.reason;
  if (verdict.outcome != ScanOutcome::refused) {
    reason += "; the host does not load it until the file changes";
    if (!cache_file.empty()) reason += " (remembered in " + cache_file.string() + ")";
  }
  registry.refuse({file, reason});
}

}  // namespace

IsolationSettings isolation_settings(const fs::path& executable_dir,
                                     const std::function<const char*(const char*)>& getenv) {
  IsolationSettings settings;
  settings.timeout_s = scan_timeout(getenv("LIBREYOLO_PLUGIN_SCAN_TIMEOUT"));
  const char* scanner = getenv("LIBREYOLO_PLUGIN_SCANNER");
  if (scanner && std::string(scanner) == "off") return settings;  // asked for: no warning
  settings.scanner = scanner && *scanner ? fs::path(scanner) : executable_dir / kScannerName;
  if (::access(settings.scanner.c_str(), X_OK) != 0) {
    settings.without_scanner = "the plugin scanner " + settings.scanner.string() +
                               " is missing, so plugins are loaded without isolation (one that crashes "
                               "ends this process); install it next to the host or set "
                               "LIBREYOLO_PLUGIN_SCANNER";
    settings.scanner.clear();
    return settings;
  }
  settings.cache_file = registry_cache_path(getenv("XDG_CACHE_HOME"), getenv("HOME"), host_abi_stamp());
  return settings;
}

FamilyRegistry load_plugins_isolated(const std::vector<fs::path>& dirs, const IsolationSettings& settings) {
  if (settings.scanner.empty()) {
    if (!settings.without_scanner.empty()) log::warn(settings.without_scanner);
    return load_plugins(dirs);
  }
  const auto found = find_plugin_files(dirs);
  const auto identity = cache_identity(settings.scanner);
  auto cache = settings.cache_file.empty() ? PluginRegistryCache(identity)
                                           : read_registry_cache(settings.cache_file, identity);
  std::string error;
  std::size_t scanned = 0;
  const auto verdicts = verdicts_for(found.files, settings, cache, scanned, error);
  if (!verdicts) {
    log::warn("plugins are loaded without isolation: ", error);
    return load_plugins(dirs);
  }
  log::debug("plugins: ", scanned, " scanned, ", found.files.size() - scanned,
             " from the plugin registry cache ", settings.cache_file.string());
  const bool dropped = cache.forget_missing_files();
  if ((dropped || scanned > 0) && !settings.cache_file.empty()) write_registry_cache(settings.cache_file, cache);
  FamilyRegistry registry;
  for (const auto& problem : found.problems) registry.refuse(problem);
  for (std::size_t i = 0; i < found.files.size(); ++i) {
    apply_verdict(found.files[i], (*verdicts)[i], settings.cache_file, registry);
  }
  return registry;
}

}  // namespace libreyolo::core::plugins

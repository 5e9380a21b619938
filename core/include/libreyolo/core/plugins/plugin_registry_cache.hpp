#pragma once
// The plugin registry cache: what the scanner said about each plugin file, so that an
// unchanged plugin is not scanned again (scanning starts a process that loads LibTorch).
// A file is unchanged while its stamp (size, mtime, ctime, inode) is; the whole cache is valid
// for one identity (the host's ABI stamp and the scanner binary's stamp): another host or a
// rebuilt scanner scans everything again. One text file, one line per plugin:
//
//   libreyolo-plugin-registry 1
//   identity<TAB><identity, escaped>
//   <ok|refused|crashed|hung|exited><TAB>size<TAB>mtime<TAB>ctime<TAB>inode<TAB><path><TAB><reason>
//   end<TAB><number of plugin lines>
//
// Anything else (a foreign file, a cut-short write, a damaged line) makes the whole file
// ignored: it is rewritten after the next scan.

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "libreyolo/core/data/dataset/image_scan.hpp"
#include "libreyolo/core/plugins/plugin_scan.hpp"

namespace libreyolo::core::plugins {

struct CachedScan {
  data::FileStamp stamp;
  ScanVerdict verdict;
};

class PluginRegistryCache {
 public:
  explicit PluginRegistryCache(std::string identity) : identity_(std::move(identity)) {}

  // The verdict for this file when its stamp is the one recorded; nullptr otherwise.
  const ScanVerdict* find(const std::filesystem::path& file, const data::FileStamp& stamp) const;
  void record(const std::filesystem::path& file, const data::FileStamp& stamp, ScanVerdict verdict);
  // Drops entries whose file is gone (plugins deleted or moved); true when any was dropped.
  bool forget_missing_files();

  const std::string& identity() const { return identity_; }
  const std::map<std::filesystem::path, CachedScan>& entries() const { return entries_; }

  std::string format() const;
  // The cache in `text`, or nullopt with `problem` saying what is wrong with it. A cache of
  // another identity is a problem too ("written for ..."): its verdicts do not apply here.
  static std::optional<PluginRegistryCache> parse(const std::string& text, const std::string& identity,
                                                  std::string& problem);

 private:
  std::string identity_;
  std::map<std::filesystem::path, CachedScan> entries_;
};

// $XDG_CACHE_HOME/libreyolo, else $HOME/.cache/libreyolo, then plugin-registry-<abi>.txt
// (the ABI stamp with characters other than [A-Za-z0-9.+_-] written as '_'). Empty when
// neither variable is set: then nothing is cached.
std::filesystem::path registry_cache_path(const char* xdg_cache_home, const char* home,
                                          const std::string& abi_stamp);

// The cache at `path` (an empty one when it is missing, unreadable, damaged or of another
// identity; why is logged at debug level).
PluginRegistryCache read_registry_cache(const std::filesystem::path& path, const std::string& identity);
// Written atomically (temp file + rename), so concurrent hosts and a crash leave the old file
// or the new one. A failure (read-only home, full disk) is logged at debug level and costs
// only a scan next time: false.
bool write_registry_cache(const std::filesystem::path& path, const PluginRegistryCache& cache);

}  // namespace libreyolo::core::plugins

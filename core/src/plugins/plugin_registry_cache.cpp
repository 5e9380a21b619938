#include "libreyolo/core/plugins/plugin_registry_cache.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include "libreyolo/core/checkpoint/atomic_file.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/record_text.hpp"
#include "libreyolo/core/util/writable_folder.hpp"
#include "libreyolo/core/weights/weights_environment.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::plugins {
namespace {

constexpr const char* kHeader = "libreyolo-plugin-registry 1";

template <class Integer>
bool parse_integer(const std::string& field, Integer& value) {
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  return ec == std::errc() && ptr == end && !field.empty();
}

// One plugin line into `cache`; false when it is not one.
bool parse_entry(const std::string& line, PluginRegistryCache& cache) {
  const auto fields = split_fields(line);
  if (fields.size() != 7) return false;
  const auto outcome = scan_outcome_from(fields[0]);
  data::FileStamp stamp;
  if (!outcome || !parse_integer(fields[1], stamp.size) || !parse_integer(fields[2], stamp.mtime) ||
      !parse_integer(fields[3], stamp.ctime) || !parse_integer(fields[4], stamp.inode)) {
    return false;
  }
  const auto path = unescape_field(fields[5]);
  const auto reason = unescape_field(fields[6]);
  if (!path || path->empty() || !reason || (*outcome == ScanOutcome::approved) != reason->empty()) {
    return false;
  }
  cache.record(*path, stamp, {*outcome, *reason});
  return true;
}

}  // namespace

const ScanVerdict* PluginRegistryCache::find(const fs::path& file, const data::FileStamp& stamp) const {
  const auto it = entries_.find(file);
  if (it == entries_.end() || !stamp.exists() || it->second.stamp != stamp) return nullptr;
  return &it->second.verdict;
}

void PluginRegistryCache::record(const fs::path& file, const data::FileStamp& stamp, ScanVerdict verdict) {
  entries_[file] = {stamp, std::move(verdict)};
}

bool PluginRegistryCache::forget_missing_files() {
  bool dropped = false;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (data::stamp_file(it->first).exists()) {
      ++it;
    } else {
      it = entries_.erase(it);
      dropped = true;
    }
  }
  return dropped;
}

std::string PluginRegistryCache::format() const {
  std::ostringstream out;
  out << kHeader << "\nidentity\t" << escape_field(identity_) << "\n";
  for (const auto& [file, entry] : entries_) {
    out << to_string(entry.verdict.outcome) << '\t' << entry.stamp.size << '\t' << entry.stamp.mtime << '\t'
        << entry.stamp.ctime << '\t' << entry.stamp.inode << '\t' << escape_field(file.string()) << '\t'
        << escape_field(entry.verdict.reason) << '\n';
  }
  out << "end\t" << entries_.size() << "\n";
  return out.str();
}

std::optional<PluginRegistryCache> PluginRegistryCache::parse(const std::string& text, const std::string& identity,
                                                              std::string& problem) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kHeader) {
    problem = "it does not start with '" + std::string(kHeader) + "'";
    return std::nullopt;
  }
  if (!std::getline(in, line) || line != "identity\t" + escape_field(identity)) {
    problem = "it was written for another host or scanner (" + line + ")";
    return std::nullopt;
  }
  PluginRegistryCache cache(identity);
  std::size_t count = 0;
  for (int number = 3; std::getline(in, line); ++number, ++count) {
    if (line.rfind("end\t", 0) == 0) {
      std::size_t declared = 0;
      if (!parse_integer(line.substr(4), declared) || declared != count || std::getline(in, line)) {
        problem = "its end line " + std::to_string(number) + " does not close it";
        return std::nullopt;
      }
      return cache;
    }
    if (!parse_entry(line, cache)) {
      problem = "line " + std::to_string(number) + " is damaged";
      return std::nullopt;
    }
  }
  problem = "it is cut short (no end line)";
  return std::nullopt;
}

fs::path registry_cache_path(const char* xdg_cache_home, const char* home, const std::string& abi_stamp) {
  // The one cache folder of the host: downloaded weights live there too.
  const auto folder = weights::libreyolo_cache_folder(xdg_cache_home, home);
  if (folder.empty()) return {};
  std::string name = abi_stamp;
  for (char& c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '+' || c == '_' || c == '-';
    if (!plain) c = '_';
  }
  return folder / ("plugin-registry-" + name + ".txt");
}

PluginRegistryCache read_registry_cache(const fs::path& path, const std::string& identity) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return PluginRegistryCache(identity);
  std::ostringstream text;
  text << in.rdbuf();
  std::string problem;
  if (auto cache = PluginRegistryCache::parse(text.str(), identity, problem)) return std::move(*cache);
  log::debug("plugin registry cache ", path.string(), " ignored (", problem, "); it will be rewritten");
  return PluginRegistryCache(identity);
}

bool write_registry_cache(const fs::path& path, const PluginRegistryCache& cache) {
  try {
    if (!util::may_write_into(path.parent_path())) throw std::runtime_error("its folder is read-only");
    fs::create_directories(path.parent_path());
    const std::string text = cache.format();
    checkpoint::write_file_atomically(path, [&](checkpoint::AtomicFileWriter& out) {
      out.write(text.data(), text.size());
    });
    return true;
  } catch (const std::exception& e) {
    log::debug("plugin registry cache ", path.string(), " not written: ", e.what());
    return false;
  }
}

}  // namespace libreyolo::core::plugins

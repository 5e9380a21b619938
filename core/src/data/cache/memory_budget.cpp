#include "libreyolo/core/data/cache/memory_budget.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

namespace libreyolo::core::data {
namespace {

std::string read_text(const char* path) {
  std::ifstream in(path);
  if (!in) return {};
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::optional<std::uint64_t> parse_number(const std::string& text) {
  std::istringstream in(text);
  unsigned long long value = 0;
  if (!(in >> value)) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

// "key value" lines (memory.stat); nullopt when the key is missing.
std::optional<std::uint64_t> stat_value(const std::string& stat, const char* key) {
  std::istringstream in(stat);
  std::string name;
  unsigned long long value = 0;
  while (in >> name >> value) {
    if (name == key) return static_cast<std::uint64_t>(value);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> parse_mem_available(const std::string& meminfo) {
  std::istringstream in(meminfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    unsigned long long kib = 0;
    if (fields >> kib) return static_cast<std::uint64_t>(kib) * 1024;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> cgroup_headroom(const std::string& limit, const std::string& usage,
                                             const std::string& stat, const char* inactive_key) {
  const auto max = parse_number(limit);  // "max" (v2, no limit) does not parse
  const auto used = parse_number(usage);
  // v1 reports "no limit" as a page-rounded 2^63; anything above 2^60 is no real limit.
  if (!max || !used || *max >= (1ull << 60)) return std::nullopt;
  // Inactive page cache is reclaimable: count the working set, as kubelet and docker do.
  const std::uint64_t inactive = stat_value(stat, inactive_key).value_or(0);
  const std::uint64_t working_set = *used > inactive ? *used - inactive : 0;
  return *max > working_set ? *max - working_set : 0;
}

std::optional<std::uint64_t> available_memory_bytes() {
  std::optional<std::uint64_t> available = parse_mem_available(read_text("/proc/meminfo"));
  auto tighten = [&](std::optional<std::uint64_t> headroom) {
    if (headroom) available = available ? std::min(*available, *headroom) : *headroom;
  };
  // cgroup v2 (unified), then v1. Inside a container the namespace root is its own cgroup.
  tighten(cgroup_headroom(read_text("/sys/fs/cgroup/memory.max"),
                          read_text("/sys/fs/cgroup/memory.current"),
                          read_text("/sys/fs/cgroup/memory.stat"), "inactive_file"));
  tighten(cgroup_headroom(read_text("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
                          read_text("/sys/fs/cgroup/memory/memory.usage_in_bytes"),
                          read_text("/sys/fs/cgroup/memory/memory.stat"), "total_inactive_file"));
  return available;
}

}  // namespace libreyolo::core::data

#pragma once
// How much memory this process can still take, for deciding whether cache=ram fits.
// A container's memory limit (cgroup v1 or v2) counts as much as the machine's: a RAM cache
// sized from /proc/meminfo alone gets the process OOM-killed inside a 16 GB container on a
// 512 GB host.

#include <cstdint>
#include <optional>
#include <string>

namespace libreyolo::core::data {

// The fraction of the available memory a RAM cache may take. The rest is for the loader's
// batch buffers, the model, LibTorch, CUDA's pinned staging memory and the rest of the system.
inline constexpr double kRamCacheShareOfAvailable = 0.6;

// min(MemAvailable, cgroup limit - cgroup working set); nullopt when nothing can be read.
std::optional<std::uint64_t> available_memory_bytes();

// "MemAvailable:   123456 kB" from /proc/meminfo text, in bytes.
std::optional<std::uint64_t> parse_mem_available(const std::string& meminfo);

// Bytes left under a cgroup limit: limit - (usage - inactive file cache). nullopt when the
// limit text is "max" or an effectively unlimited number.
std::optional<std::uint64_t> cgroup_headroom(const std::string& limit, const std::string& usage,
                                             const std::string& stat, const char* inactive_key);

}  // namespace libreyolo::core::data

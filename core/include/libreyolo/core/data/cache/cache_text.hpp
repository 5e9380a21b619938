#pragma once
// Sizes and durations as the cache's log lines print them.

#include <cstdint>
#include <string>

namespace libreyolo::core::data {

// "1.23 GB", "113.7 MB" or "51.2 kB" (decimal units, as df -H prints them).
std::string format_bytes(std::uint64_t bytes);

// "12.3 s"
std::string format_seconds(double seconds);

}  // namespace libreyolo::core::data

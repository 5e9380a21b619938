#include "libreyolo/core/data/cache/cache_text.hpp"

#include <cstdio>

namespace libreyolo::core::data {

std::string format_bytes(std::uint64_t bytes) {
  char text[32];
  const double value = static_cast<double>(bytes);
  if (value >= 1e9) {
    std::snprintf(text, sizeof text, "%.2f GB", value / 1e9);
  } else if (value >= 1e6) {
    std::snprintf(text, sizeof text, "%.1f MB", value / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%.1f kB", value / 1e3);
  }
  return text;
}

std::string format_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

}  // namespace libreyolo::core::data

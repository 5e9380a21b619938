#include "libreyolo/core/data/cache/cache_mode.hpp"

#include <algorithm>
#include <cctype>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {

CacheMode parse_cache_mode(const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "ram" || lower == "true") return CacheMode::ram;
  if (lower == "disk") return CacheMode::disk;
  if (lower == "false" || lower == "none" || lower.empty()) return CacheMode::none;
  throw Error("Unknown cache mode '" + text + "'", "cache accepts false, ram or disk",
              "Pass cache=ram, cache=disk or cache=false");
}

const char* cache_mode_name(CacheMode mode) {
  switch (mode) {
    case CacheMode::ram:
      return "ram";
    case CacheMode::disk:
      return "disk";
    case CacheMode::none:
      break;
  }
  return "false";
}

}  // namespace libreyolo::core::data

#pragma once
// The `cache=` option's values as the CLI spells them (false, ram, disk) and back.

#include <string>

#include "libreyolo/core/data/cache/image_source.hpp"

namespace libreyolo::core::data {

// "ram" / "true" -> ram, "disk" -> disk, "false" / "none" / "" -> none (case-insensitive).
// Throws libreyolo::core::Error for anything else.
CacheMode parse_cache_mode(const std::string& text);

// "ram", "disk", or "false" (the CLI's word for no cache).
const char* cache_mode_name(CacheMode mode);

}  // namespace libreyolo::core::data

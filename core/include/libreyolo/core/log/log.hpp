#pragma once
// The host's logging facade. spdlog stays behind this header: LibTorch 2.x ships fmt 12
// headers that break spdlog's fmt in any translation unit that sees both, so only
// core/src/log/*.cpp (which never include LibTorch) talk to spdlog.
//
// Messages are assembled with sdk::str_cat: log::info("loaded ", n, " families").

#include <filesystem>
#include <string>

#include "libreyolo/sdk/strings.hpp"

namespace libreyolo::core::log {

enum class Level : int { debug = 1, info = 2, warn = 3, error = 4, off = 5 };

// Console verbosity (default info; verbose=true sets debug).
void set_level(Level level);
Level level();

// Adds a file that receives every message at debug level and above, with timestamps
// (the run folder's log). Replaces a previous file sink.
void set_file(const std::filesystem::path& file);
void close_file();

void write(Level level, const std::string& message);

// Routes the SDK's plugin logging (sdk::log) into this logger.
void capture_plugin_logs();

template <class... Parts>
void debug(const Parts&... parts) { write(Level::debug, sdk::str_cat(parts...)); }
template <class... Parts>
void info(const Parts&... parts) { write(Level::info, sdk::str_cat(parts...)); }
template <class... Parts>
void warn(const Parts&... parts) { write(Level::warn, sdk::str_cat(parts...)); }
template <class... Parts>
void error(const Parts&... parts) { write(Level::error, sdk::str_cat(parts...)); }

}  // namespace libreyolo::core::log

#pragma once
// Logging for family plugins. Plugins never see the host's logger; they write through this
// sink, which the host points at its own log (console + run-folder file). Without a host
// (a plugin's own unit tests) messages go to stderr.

#include <string>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/strings.hpp"

namespace libreyolo::sdk::log {

enum class Level : int { debug = 1, info = 2, warn = 3, error = 4 };

using Sink = void (*)(Level level, const char* message);

LIBREYOLO_SDK_API void set_sink(Sink sink);
LIBREYOLO_SDK_API void write(Level level, const std::string& message);

template <class... Parts>
void debug(const Parts&... parts) { write(Level::debug, str_cat(parts...)); }
template <class... Parts>
void info(const Parts&... parts) { write(Level::info, str_cat(parts...)); }
template <class... Parts>
void warn(const Parts&... parts) { write(Level::warn, str_cat(parts...)); }
template <class... Parts>
void error(const Parts&... parts) { write(Level::error, str_cat(parts...)); }

}  // namespace libreyolo::sdk::log

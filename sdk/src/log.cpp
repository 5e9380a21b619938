#include "libreyolo/sdk/log.hpp"

#include <atomic>
#include <cstdio>

namespace libreyolo::sdk::log {
namespace {

const char* level_name(Level level) {
  switch (level) {
    case Level::debug: return "debug";
    case Level::info: return "info";
    case Level::warn: return "warning";
    case Level::error: return "error";
  }
  return "log";
}

// Used until a host installs its own sink (plugin unit tests, tools).
void stderr_sink(Level level, const char* message) {
  std::fprintf(stderr, "[%s] %s\n", level_name(level), message);
}

std::atomic<Sink> current_sink{&stderr_sink};

}  // namespace

void set_sink(Sink sink) { current_sink.store(sink ? sink : &stderr_sink); }

void write(Level level, const std::string& message) {
  current_sink.load()(level, message.c_str());
}

}  // namespace libreyolo::sdk::log

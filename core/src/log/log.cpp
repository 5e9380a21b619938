// spdlog lives in this file only (see log.hpp for why).
#include "libreyolo/core/log/log.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include "libreyolo/sdk/log.hpp"

namespace libreyolo::core::log {
namespace {

spdlog::level::level_enum to_spdlog(Level level) {
  switch (level) {
    case Level::debug: return spdlog::level::debug;
    case Level::info: return spdlog::level::info;
    case Level::warn: return spdlog::level::warn;
    case Level::error: return spdlog::level::err;
    case Level::off: return spdlog::level::off;
  }
  return spdlog::level::info;
}

// Console lines stay plain for info ("message") and say their level otherwise
// ("warning: message"), like compilers do; the file gets timestamps.
struct Logger {
  std::mutex mutex;
  std::shared_ptr<spdlog::sinks::stderr_color_sink_mt> console;
  std::shared_ptr<spdlog::sinks::basic_file_sink_mt> file;
  std::shared_ptr<spdlog::logger> logger;
  Level console_level = Level::info;

  Logger() {
    console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    console->set_pattern("%^%v%$");
    console->set_level(spdlog::level::info);
    logger = std::make_shared<spdlog::logger>("libreyolo", console);
    logger->set_level(spdlog::level::debug);
    logger->flush_on(spdlog::level::warn);
  }
};

Logger& instance() {
  static Logger logger;
  return logger;
}

std::string console_prefix(Level level) {
  switch (level) {
    case Level::debug: return "debug: ";
    case Level::warn: return "warning: ";
    case Level::error: return "error: ";
    default: return "";
  }
}

void plugin_sink(sdk::log::Level level, const char* message) {
  write(static_cast<Level>(static_cast<int>(level)), message);
}

}  // namespace

void set_level(Level level) {
  auto& l = instance();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.console_level = level;
  l.console->set_level(to_spdlog(level));
}

Level level() { return instance().console_level; }

void set_file(const std::filesystem::path& file) {
  auto& l = instance();
  std::lock_guard<std::mutex> lock(l.mutex);
  auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file.string(), false);
  sink->set_pattern("%Y-%m-%d %H:%M:%S.%e %l %v");
  sink->set_level(spdlog::level::debug);
  auto& sinks = l.logger->sinks();
  if (l.file) sinks.erase(std::remove(sinks.begin(), sinks.end(), l.file), sinks.end());
  l.file = sink;
  sinks.push_back(sink);
}

void close_file() {
  auto& l = instance();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (!l.file) return;
  l.file->flush();
  auto& sinks = l.logger->sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), l.file), sinks.end());
  l.file.reset();
}

void write(Level level, const std::string& message) {
  if (level == Level::off) return;
  auto& l = instance();
  // The prefix is part of the message so the file shows it too; spdlog's own level
  // still drives filtering and colour.
  l.logger->log(to_spdlog(level), "{}{}", console_prefix(level), message);
}

void capture_plugin_logs() { sdk::log::set_sink(&plugin_sink); }

}  // namespace libreyolo::core::log

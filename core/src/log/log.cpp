// spdlog lives in this file only (see log.hpp for why).
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/log/log_hold.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>

#include "libreyolo/core/error.hpp"
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
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> held;  // hold_for_file(): lines for the next file
  std::shared_ptr<spdlog::logger> logger;
  Level console_level = Level::info;

  Logger() {
    console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    console->set_pattern("%^%v%$");
    // https://no-color.org: any non-empty NO_COLOR turns colour off.
    if (const char* no_color = std::getenv("NO_COLOR"); no_color && *no_color) {
      console->set_color_mode(spdlog::color_mode::never);
    }
    console->set_level(spdlog::level::info);
    logger = std::make_shared<spdlog::logger>("libreyolo", console);
    logger->set_level(spdlog::level::debug);
    // Every line reaches train.log as it is written: a run killed by SIGKILL or the OOM killer
    // leaves its log up to the end (lines come every log_interval steps: cheap to flush).
    logger->flush_on(spdlog::level::debug);
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

constexpr const char* kFilePattern = "%Y-%m-%d %H:%M:%S.%e %l %v";
// More lines than a run's preparation logs (beyond, the oldest go), few enough to cost nothing
// if no file follows: spdlog allocates the ring up front.
constexpr std::size_t kHeldLines = 4096;

void drop_sink(Logger& l, const std::shared_ptr<spdlog::sinks::sink>& sink) {
  auto& sinks = l.logger->sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
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

void hold_for_file() {
  auto& l = instance();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (l.held) drop_sink(l, l.held);
  l.held = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(kHeldLines);
  l.held->set_pattern(kFilePattern);
  l.held->set_level(spdlog::level::debug);
  l.logger->sinks().push_back(l.held);
}

void set_file(const std::filesystem::path& file) {
  auto& l = instance();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (l.held) {
    // What was logged before the file could exist goes first, with its own timestamps.
    std::ofstream early(file, std::ios::app);
    for (const auto& line : l.held->last_formatted()) early << line;
    drop_sink(l, l.held);
    l.held.reset();
  }
  std::shared_ptr<spdlog::sinks::basic_file_sink_mt> sink;
  try {
    sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file.string(), false);
  } catch (const spdlog::spdlog_ex& e) {
    throw Error("cannot write the log file " + file.string(), e.what(),
                "make its folder writable, or choose another project= folder");
  }
  sink->set_pattern(kFilePattern);
  sink->set_level(spdlog::level::debug);
  if (l.file) drop_sink(l, l.file);
  l.file = sink;
  l.logger->sinks().push_back(sink);
}

void close_file() {
  auto& l = instance();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (l.held) drop_sink(l, l.held);
  l.held.reset();
  if (!l.file) return;
  l.file->flush();
  drop_sink(l, l.file);
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

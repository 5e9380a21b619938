// How a scanner process ended, in words a plugin author can act on (plugin_scan.hpp).
#include <signal.h>
#include <sys/wait.h>

#include <cstring>
#include <iomanip>
#include <sstream>

#include "libreyolo/core/plugins/plugin_scan.hpp"

namespace libreyolo::core::plugins {
namespace {

const char* signal_abbreviation(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    default: return nullptr;
  }
}

// The plugin's last line of output often says why (std::terminate's "terminate called after
// throwing ...", an assertion); a crash with no word at all says nothing more.
std::string last_words(const std::string& output) {
  auto end = output.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  const auto start = output.rfind('\n', end);
  std::string line = output.substr(start == std::string::npos ? 0 : start + 1,
                                   end + 1 - (start == std::string::npos ? 0 : start + 1));
  constexpr std::size_t kMax = 300;
  if (line.size() > kMax) line = line.substr(0, kMax) + "...";
  return "; its last output: " + line;
}

std::string seconds(double s) {
  std::ostringstream out;
  out << std::setprecision(3) << s << " s";
  return out.str();
}

}  // namespace

std::string describe_signal(int signal) {
  const char* name = signal_abbreviation(signal);
  const char* description = ::strsignal(signal);
  std::string text = name ? std::string(name) : "signal " + std::to_string(signal);
  if (name && description) text += std::string(" (") + description + ")";
  return text;
}

namespace {

// How a scanner that never got as far as loading the plugin ended.
std::string how_it_ended(const ScanProcessEnd& end) {
  if (end.timed_out) return "it did not start within " + seconds(end.timeout_s);
  if (WIFSIGNALED(end.wait_status)) return "signal " + describe_signal(WTERMSIG(end.wait_status));
  return "exit code " + std::to_string(WIFEXITED(end.wait_status) ? WEXITSTATUS(end.wait_status) : -1);
}

}  // namespace

ScanVerdict classify_scan(const ScanProcessEnd& end) {
  if (!end.started) {
    return {ScanOutcome::refused,
            "the plugin scanner failed before it loaded the plugin (" + how_it_ended(end) +
                "), so the plugin is not to blame; it is scanned again next time" + last_words(end.output_tail),
            false};
  }
  if (end.timed_out) {
    return {ScanOutcome::hung, "it hung: the plugin scanner got no answer from it within " +
                                   seconds(end.timeout_s) + " and was killed" +
                                   last_words(end.output_tail)};
  }
  if (WIFSIGNALED(end.wait_status)) {
    return {ScanOutcome::crashed, "it crashed the plugin scanner with signal " +
                                      std::to_string(WTERMSIG(end.wait_status)) + ", " +
                                      describe_signal(WTERMSIG(end.wait_status)) +
                                      last_words(end.output_tail)};
  }
  const int code = WIFEXITED(end.wait_status) ? WEXITSTATUS(end.wait_status) : -1;
  if (code == 0) {
    if (auto verdict = parse_scan_record(end.record)) return *verdict;
  }
  // exit() from a static constructor or from the factory ends the process as calmly as a
  // finished scan would; only the missing answer tells them apart.
  return {ScanOutcome::exited, "it ended the plugin scanner's process with exit code " +
                                   std::to_string(code) +
                                   " before the scan finished (does the plugin call exit() while "
                                   "loading?)" + last_words(end.output_tail)};
}

}  // namespace libreyolo::core::plugins

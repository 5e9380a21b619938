#pragma once
// Plugin isolation (docs/reliability.md, "Plugins that crash or hang"): before the host loads a
// plugin into its own process, libreyolo-plugin-scanner loads it in a child process and runs
// what the host would run at load time. A plugin that kills the scanner (a signal, exit(),
// an endless loop) is refused with the reason, and the host never maps its code.
//
// The scanner's answer is a three-line record on its stdout:
//   libreyolo-plugin-scan 1
//   ok                      or   refused<TAB><reason, escaped>
//   end
// A record without its last line was cut short: the scanner did not finish. The scanner writes
// the first line as soon as it runs, before it loads the plugin: the plugin's timeout counts
// from there, so the scanner's own start (mapping LibTorch, seconds on a busy machine) is never
// taken for a hung plugin, and a scanner that fails to start is never blamed on the plugin.

#include <filesystem>
#include <optional>
#include <string>

namespace libreyolo::core::plugins {

enum class ScanOutcome { approved, refused, crashed, hung, exited };

// "ok", "refused", "crashed", "hung", "exited": the words of the record and of the cache.
const char* to_string(ScanOutcome outcome);
std::optional<ScanOutcome> scan_outcome_from(const std::string& word);

struct ScanVerdict {
  ScanOutcome outcome = ScanOutcome::refused;
  std::string reason;  // empty when approved
  bool remember = true;  // false: not the plugin's doing (the scanner did not start); not cached
};

// The record's first line, which the scanner writes before loading the plugin.
std::string scan_record_header();
// The rest of the record for an approved or refused plugin.
std::string format_scan_answer(const ScanVerdict& verdict);
// Both: the whole record.
std::string format_scan_record(const ScanVerdict& verdict);
// The record read back; nullopt unless it is complete and well formed.
std::optional<ScanVerdict> parse_scan_record(const std::string& text);

// How a scanner process ended, as the host saw it.
struct ScanProcessEnd {
  bool started = true;      // the record's first line arrived: the plugin was being loaded
  bool timed_out = false;
  int wait_status = 0;      // from waitpid
  double timeout_s = 0;     // the limit it ran under
  std::string record;       // everything it wrote on stdout
  std::string output_tail;  // the end of what it (the plugin) wrote on stderr
};

// ok / refused (the scanner's own answer, when it finished and exited 0), crashed (a signal,
// named), hung (killed at the timeout) or exited (ended without its answer: exit() inside the
// plugin, or a non-zero code). A scanner that ended before its first line is refused for this
// run only (remember = false): the plugin was never loaded.
ScanVerdict classify_scan(const ScanProcessEnd& end);

// "SIGSEGV (Segmentation fault)"; "signal 42" for one without a usual name.
std::string describe_signal(int signal);

// Runs the scanner on one plugin file; kills it when the plugin takes longer than timeout_s
// once the scanner started (or the scanner takes a minute to start).
// nullopt with `error` set when the scanner could not be started at all.
std::optional<ScanProcessEnd> run_scanner(const std::filesystem::path& scanner,
                                          const std::filesystem::path& plugin, double timeout_s,
                                          std::string& error);

// The scanner's side: what the host would run at load time (entry points, ABI stamp, factory,
// info, policy, validation, every size's recipe as option defaults), in this process.
ScanVerdict scan_in_this_process(const std::filesystem::path& plugin);

}  // namespace libreyolo::core::plugins

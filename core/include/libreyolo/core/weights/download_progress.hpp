#pragma once
// The progress of one download on stderr. On a terminal: one line redrawn in place (bytes,
// percent and a bar when the size is known, rate), at most ten times a second. Elsewhere (a
// log file, CI): a line at each quarter when the size is known and one at the end, so that logs
// are not flooded with carriage returns.

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace libreyolo::core::weights {

// "12.3 MB", "845 kB", "512 B" (decimal units, as download tools show them).
std::string format_bytes(std::uint64_t bytes);

// "LibreYOLO9s.pt: 12.3 MB of 45.6 MB (27%) at 8.1 MB/s", or without " of ... (..%)" when the
// size is unknown; `with_bar` adds a 20-character bar before the numbers.
std::string progress_line(const std::string& name, std::uint64_t bytes, std::optional<std::uint64_t> total,
                          double bytes_per_second, bool with_bar);

class DownloadProgress {
 public:
  using Clock = std::chrono::steady_clock;
  // `resumed_from`: bytes already on disk, counted in the total but not in the rate.
  DownloadProgress(std::ostream& out, bool terminal, std::string name, std::uint64_t resumed_from);
  // Bytes on disk so far (resumed part included) and the full size when known.
  void update(std::uint64_t bytes, std::optional<std::uint64_t> total, Clock::time_point now = Clock::now());
  // The last line, once; ok=false ends a terminal's line without claiming completion.
  void finish(bool ok, Clock::time_point now = Clock::now());

 private:
  double rate(Clock::time_point now) const;
  void show(Clock::time_point now);

  std::ostream& out_;
  bool terminal_;
  std::string name_;
  std::uint64_t resumed_from_;
  Clock::time_point start_;
  Clock::time_point last_draw_{};
  std::uint64_t bytes_ = 0;
  std::optional<std::uint64_t> total_;
  int quarters_shown_ = 0;
  bool drawn_ = false;
  bool finished_ = false;
};

}  // namespace libreyolo::core::weights

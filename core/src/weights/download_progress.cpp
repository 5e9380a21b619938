#include "libreyolo/core/weights/download_progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace libreyolo::core::weights {
namespace {

constexpr int kBarWidth = 20;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

int percent_of(std::uint64_t bytes, std::uint64_t total) {
  if (total == 0) return 100;
  return static_cast<int>(std::min<std::uint64_t>(100, bytes * 100 / total));
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  char text[32];
  if (bytes < 1000) {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < 1000 * 1000) {
    std::snprintf(text, sizeof text, "%.0f kB", static_cast<double>(bytes) / 1e3);
  } else if (bytes < 1000ull * 1000 * 1000) {
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%.2f GB", static_cast<double>(bytes) / 1e9);
  }
  return text;
}

std::string progress_line(const std::string& name, std::uint64_t bytes, std::optional<std::uint64_t> total,
                          double bytes_per_second, bool with_bar) {
  std::string line = name + ": ";
  if (total && with_bar) {
    const int filled = percent_of(bytes, *total) * kBarWidth / 100;
    line += "[" + std::string(static_cast<std::size_t>(filled), '#') +
            std::string(static_cast<std::size_t>(kBarWidth - filled), '.') + "] ";
  }
  line += format_bytes(bytes);
  if (total) line += " of " + format_bytes(*total) + " (" + std::to_string(percent_of(bytes, *total)) + "%)";
  line += " at " + format_bytes(static_cast<std::uint64_t>(std::llround(bytes_per_second))) + "/s";
  return line;
}

DownloadProgress::DownloadProgress(std::ostream& out, bool terminal, std::string name, std::uint64_t resumed_from)
    : out_(out), terminal_(terminal), name_(std::move(name)), resumed_from_(resumed_from), start_(Clock::now()) {}

double DownloadProgress::rate(Clock::time_point now) const {
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const auto fresh = bytes_ > resumed_from_ ? bytes_ - resumed_from_ : 0;
  return seconds > 0 ? static_cast<double>(fresh) / seconds : 0.0;
}

void DownloadProgress::show(Clock::time_point now) {
  const auto line = progress_line(name_, bytes_, total_, rate(now), terminal_);
  if (terminal_) {
    out_ << "\r" << line << "\x1b[K" << std::flush;  // \x1b[K: clear what a longer line left
  } else {
    out_ << line << "\n" << std::flush;
  }
  drawn_ = true;
}

void DownloadProgress::update(std::uint64_t bytes, std::optional<std::uint64_t> total, Clock::time_point now) {
  if (finished_) return;
  bytes_ = bytes;
  if (total && !total_) {
    total_ = total;
    // A resumed download starts part-way: only the quarters still ahead get a line.
    quarters_shown_ = percent_of(resumed_from_, *total_) / 25;
  }
  if (terminal_) {
    if (now - last_draw_ < kRedrawInterval) return;
    last_draw_ = now;
    show(now);
    return;
  }
  if (!total_ || *total_ == 0) return;
  const int quarter = percent_of(bytes_, *total_) / 25;
  if (quarter > quarters_shown_ && quarter < 4) {
    quarters_shown_ = quarter;
    show(now);
  }
}

void DownloadProgress::finish(bool ok, Clock::time_point now) {
  if (finished_) return;
  finished_ = true;
  if (ok || terminal_) show(now);
  if (terminal_) out_ << "\n" << std::flush;
}

}  // namespace libreyolo::core::weights

#include "libreyolo/core/data/dataset/scan_progress.hpp"

#include <cstdio>
#include <utility>

#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {

ScanProgress::ScanProgress(std::string split, std::size_t total, std::chrono::milliseconds interval)
    : split_(std::move(split)),
      total_(total),
      interval_ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(interval).count()),
      start_ns_(now_ns()),
      next_report_ns_(start_ns_ + interval_ns_) {}

std::int64_t ScanProgress::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void ScanProgress::image_done() {
  const std::size_t done = ++done_;
  const std::int64_t now = now_ns();
  std::int64_t due = next_report_ns_.load(std::memory_order_relaxed);
  // One worker wins the report; the others go on without waiting.
  if (now < due || !next_report_ns_.compare_exchange_strong(due, now + interval_ns_)) return;
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.0f%%", 100.0 * static_cast<double>(done) /
                                                      static_cast<double>(total_ > 0 ? total_ : 1));
  const double seconds = static_cast<double>(now - start_ns_) / 1e9;
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.0f s", seconds);
  log::info("scanning dataset split '", split_, "': ", done, " of ", total_, " images (", percent,
            ", ", elapsed, ")");
}

}  // namespace libreyolo::core::data

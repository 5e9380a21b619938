#pragma once
// The dataset scan's progress line. A first scan of 100k images over a network file system
// takes minutes, and a start that prints nothing for minutes looks hung: one line at most
// every `interval`, none at all for a scan that ends sooner.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace libreyolo::core::data {

class ScanProgress {
 public:
  ScanProgress(std::string split, std::size_t total, std::chrono::milliseconds interval);
  // Thread-safe: the scan's workers call it after each image.
  void image_done();

 private:
  static std::int64_t now_ns();

  std::string split_;
  std::size_t total_;
  std::int64_t interval_ns_;
  std::int64_t start_ns_;
  std::atomic<std::size_t> done_{0};
  std::atomic<std::int64_t> next_report_ns_;
};

}  // namespace libreyolo::core::data

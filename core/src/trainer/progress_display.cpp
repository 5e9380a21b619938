#include "libreyolo/core/trainer/progress_display.hpp"

#include <unistd.h>

#include <cstdio>

namespace libreyolo::core::trainer {

std::string format_duration(double seconds) {
  const long total = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
  char buffer[32];
  if (total >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld", total / 60, total % 60);
  }
  return buffer;
}

ProgressDisplay::ProgressDisplay(int epochs, std::size_t steps_per_epoch, bool shown)
    : epochs_(epochs), steps_(steps_per_epoch), interactive_(shown && ::isatty(STDERR_FILENO) != 0) {}

void ProgressDisplay::start_epoch(int epoch) {
  epoch_ = epoch;
  start_ = std::chrono::steady_clock::now();
}

void ProgressDisplay::update(std::size_t step, std::size_t images,
                             const std::vector<std::pair<std::string, double>>& losses, double gpu_memory_gb) {
  if (!interactive_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(images) / elapsed : 0;
  const double eta = step > 0 ? elapsed / static_cast<double>(step) * static_cast<double>(steps_ - step) : 0;
  std::string line = "\r epoch " + std::to_string(epoch_ + 1) + "/" + std::to_string(epochs_) + "  " +
                     std::to_string(step) + "/" + std::to_string(steps_);
  char buffer[64];
  for (const auto& [name, value] : losses) {
    std::snprintf(buffer, sizeof buffer, "  %s %.4f", name.c_str(), value);
    line += buffer;
  }
  std::snprintf(buffer, sizeof buffer, "  %.0f img/s  ETA %s", rate, format_duration(eta).c_str());
  line += buffer;
  if (gpu_memory_gb >= 0) {
    std::snprintf(buffer, sizeof buffer, "  %.1fG", gpu_memory_gb);
    line += buffer;
  }
  line += "\033[K";  // clear the rest of a longer previous line
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

void ProgressDisplay::finish_epoch() {
  if (interactive_) std::fputs("\n", stderr);
}

}  // namespace libreyolo::core::trainer

#include "libreyolo/core/trainer/progress_display.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace libreyolo::core::trainer {
namespace {

std::string printf_text(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

}  // namespace

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

std::string format_images_per_second(double images_per_second) {
  return printf_text(images_per_second < 10 ? "%.1f img/s" : "%.0f img/s", images_per_second);
}

std::string progress_line(const ProgressFields& f, std::size_t width) {
  std::vector<std::string> parts = {
      "epoch " + std::to_string(f.epoch + 1) + "/" + std::to_string(f.epochs),
      std::to_string(f.step) + "/" + std::to_string(f.steps),
      format_images_per_second(f.images_per_second),
      "ETA " + format_duration(f.epoch_eta_seconds) + " (run " + format_duration(f.run_eta_seconds) + ")",
  };
  if (f.gpu_memory_gb >= 0) parts.push_back(printf_text("%.1fG", f.gpu_memory_gb));
  for (const auto& [name, value] : f.losses) parts.push_back(name + printf_text(" %.4f", value));
  const std::size_t room = width > 1 ? width - 1 : 0;
  std::string line = " " + parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (line.size() + 2 + parts[i].size() > room) break;  // what does not fit is left off, not wrapped
    line += "  " + parts[i];
  }
  return line.size() > room ? line.substr(0, room) : line;
}

std::size_t terminal_width() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS"); columns && std::atoi(columns) > 0) {
    return static_cast<std::size_t>(std::atoi(columns));
  }
  return 80;
}

ProgressDisplay::ProgressDisplay(int epochs, std::size_t steps_per_epoch, bool shown)
    : epochs_(epochs), steps_(steps_per_epoch), interactive_(shown && ::isatty(STDERR_FILENO) != 0) {}

void ProgressDisplay::start_epoch(int epoch) {
  const auto now = std::chrono::steady_clock::now();
  if (started_before_) {
    finished_seconds_ += std::chrono::duration<double>(now - start_).count();
    ++finished_epochs_;
  }
  started_before_ = true;
  epoch_ = epoch;
  start_ = now;
}

// The epochs after this one take as long as the finished ones did on average (their
// validation included); before any finished, as long as this one is projected to.
double ProgressDisplay::run_eta(double epoch_seconds_projected, double epoch_eta) const {
  const double per_epoch = finished_epochs_ > 0 ? finished_seconds_ / finished_epochs_ : epoch_seconds_projected;
  const int later = epochs_ - epoch_ - 1;
  return epoch_eta + (later > 0 ? later * per_epoch : 0);
}

void ProgressDisplay::update(std::size_t step, std::size_t images,
                             const std::vector<std::pair<std::string, double>>& losses, double gpu_memory_gb) {
  if (!interactive_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  ProgressFields fields;
  fields.epoch = epoch_;
  fields.epochs = epochs_;
  fields.step = step;
  fields.steps = steps_;
  fields.images_per_second = elapsed > 0 ? static_cast<double>(images) / elapsed : 0;
  fields.epoch_eta_seconds = step > 0 ? elapsed / static_cast<double>(step) * static_cast<double>(steps_ - step) : 0;
  fields.run_eta_seconds = run_eta(elapsed + fields.epoch_eta_seconds, fields.epoch_eta_seconds);
  fields.gpu_memory_gb = gpu_memory_gb;
  fields.losses = losses;
  // "\033[K" clears the rest of a longer previous line.
  const std::string line = "\r" + progress_line(fields, terminal_width()) + "\033[K";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

void ProgressDisplay::finish_epoch() {
  if (interactive_) std::fputs("\n", stderr);
}

}  // namespace libreyolo::core::trainer

#pragma once
// The console progress line of an epoch: epoch, step, images/s, the epoch's and the run's ETA,
// GPU memory, loss components. Redrawn in place on a terminal and cut to its width (a wrapped
// line cannot be redrawn); silent when stderr is not one (logs, CI), where the per-epoch
// summary lines carry the same information.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace libreyolo::core::trainer {

// What one progress line says; progress_line() lays it out.
struct ProgressFields {
  int epoch = 0, epochs = 0;  // epoch 0-based
  std::size_t step = 0, steps = 0;
  double images_per_second = 0;
  double epoch_eta_seconds = 0, run_eta_seconds = 0;
  double gpu_memory_gb = -1;  // < 0: not shown
  std::vector<std::pair<std::string, double>> losses;
};

// The line, most important parts first (epoch, step, speed, ETAs, memory), then as many loss
// components as fit in `width` columns (at most width - 1 characters: the last column would
// wrap on some terminals).
std::string progress_line(const ProgressFields& fields, std::size_t width);

class ProgressDisplay {
 public:
  // `shown` false: never draws (the ranks other than 0 of a distributed run).
  ProgressDisplay(int epochs, std::size_t steps_per_epoch, bool shown = true);
  bool interactive() const { return interactive_; }

  void start_epoch(int epoch);
  // `losses` are means over the steps so far in the epoch; `gpu_memory_gb` < 0 hides it.
  void update(std::size_t step, std::size_t images, const std::vector<std::pair<std::string, double>>& losses,
              double gpu_memory_gb);
  void finish_epoch();  // ends the line

 private:
  double run_eta(double epoch_seconds_projected, double epoch_eta) const;

  int epochs_;
  std::size_t steps_;
  int epoch_ = 0;
  bool interactive_;
  std::chrono::steady_clock::time_point start_;
  bool started_before_ = false;
  double finished_seconds_ = 0;  // epoch start to next epoch start (validation included), summed
  int finished_epochs_ = 0;
};

// "1:23" / "12:03:45".
std::string format_duration(double seconds);

// "611 img/s", or one decimal below 10 ("0.8 img/s": a CPU at 640 px trains about one image a
// second, and "0" would read as a stall).
std::string format_images_per_second(double images_per_second);

// Columns of the terminal on stderr ($COLUMNS, else 80, when it cannot be asked).
std::size_t terminal_width();

}  // namespace libreyolo::core::trainer

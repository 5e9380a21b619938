#pragma once
// The console progress line of an epoch: epoch, step, images/s, ETA, loss components, GPU
// memory. Redrawn in place on a terminal; silent when stderr is not one (logs, CI), where
// the per-epoch summary lines carry the same information.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace libreyolo::core::trainer {

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
  int epochs_;
  std::size_t steps_;
  int epoch_ = 0;
  bool interactive_;
  std::chrono::steady_clock::time_point start_;
};

// "1:23" / "12:03:45".
std::string format_duration(double seconds);

}  // namespace libreyolo::core::trainer

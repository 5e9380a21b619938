#include "libreyolo/core/optim/accumulation.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::optim {

int64_t accumulation_steps(std::optional<int64_t> nbs, int64_t batch) {
  if (batch <= 0) {
    throw Error("Cannot plan gradient accumulation for batch " + std::to_string(batch),
                "the batch size must be positive", "set batch > 0");
  }
  if (!nbs) return 1;
  if (*nbs <= 0) {
    throw Error("Invalid nominal batch size nbs=" + std::to_string(*nbs),
                "nbs must be positive", "set nbs > 0, or leave it unset to accumulate nothing");
  }
  // nearbyint rounds halves to even under the default rounding mode, like Python's round().
  const double ratio = static_cast<double>(*nbs) / static_cast<double>(batch);
  return std::max<int64_t>(1, static_cast<int64_t>(std::nearbyint(ratio)));
}

int64_t optimizer_steps_per_epoch(int64_t batches, int64_t accumulate) {
  accumulate = std::max<int64_t>(1, accumulate);
  return std::max<int64_t>(1, (batches + accumulate - 1) / accumulate);
}

AccumulationWindow accumulation_window(int64_t epoch, int64_t batch_index, int64_t batches,
                                       int64_t accumulate) {
  accumulate = std::max<int64_t>(1, accumulate);
  AccumulationWindow w;
  w.optimizer_step =
      epoch * optimizer_steps_per_epoch(batches, accumulate) + batch_index / accumulate;
  w.starts_window = batch_index % accumulate == 0;
  w.ends_window = (batch_index + 1) % accumulate == 0 || batch_index == batches - 1;
  const int64_t window_start = batch_index - batch_index % accumulate;
  w.window_size = std::min(accumulate, batches - window_start);
  return w;
}

}  // namespace libreyolo::core::optim

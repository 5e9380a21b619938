#pragma once
// Gradient accumulation, as LibreYOLO does it: with a nominal batch size `nbs` set, the trainer
// adds up the gradients of round(nbs / batch) micro-batches before each optimizer step.
// `batch` is the global batch (all ranks together; each rank loads batch / world_size), so
// the world size does not enter. Each micro-batch loss is divided by the size of its window
// (the last window of an epoch can be shorter), so a window's gradient is the mean over it.
// Clipping, the optimizer, EMA and the lr schedule advance once per window.
// Weight decay is NOT rescaled (YOLOv5 multiplies it by batch * accumulate / nbs; LibreYOLO
// does not), so nothing here touches it.

#include <cstdint>
#include <optional>

namespace libreyolo::core::optim {

// Micro-batches per optimizer step: max(1, round(nbs / batch)) with Python's round (halves to
// even: nbs 40, batch 16 -> 2); 1 when nbs is unset (no accumulation). Throws core::Error for
// batch <= 0 or nbs <= 0.
int64_t accumulation_steps(std::optional<int64_t> nbs, int64_t batch);

// Optimizer steps in an epoch of `batches` micro-batches: ceil(batches / accumulate). This is
// the iters_per_epoch the lr schedule runs on.
int64_t optimizer_steps_per_epoch(int64_t batches, int64_t accumulate);

// Where micro-batch `batch_index` (0-based within its epoch) falls.
struct AccumulationWindow {
  int64_t optimizer_step = 0;   // global optimizer-step index (the schedule's iteration)
  bool starts_window = false;   // clear gradients before this micro-batch's backward
  bool ends_window = false;     // clip, step, EMA and lr after this micro-batch's backward
  int64_t window_size = 1;      // divide this micro-batch's loss by it
};
AccumulationWindow accumulation_window(int64_t epoch, int64_t batch_index, int64_t batches,
                                       int64_t accumulate);

}  // namespace libreyolo::core::optim

#pragma once
// LibreYOLO's learning-rate schedules, as pure functions of the optimizer-step index.
//
// How the trainer uses them (as LibreYOLO's does): before the first step of a run (or of a
// resumed run) it sets lr(start_epoch * iters_per_epoch); after each optimizer step i it sets
// lr(i + 1). iters_per_epoch counts optimizer steps, so with gradient accumulation it is
// ceil(batches / accumulate). All warm-ups clamp warmup_lr_start to at most lr0, so a
// fine-tuning lr below the start value never warms "down".

#include <cstdint>
#include <string_view>

namespace libreyolo::core::optim {

enum class LrScheduleKind {
  // YOLOX: quadratic warm-up, cosine to min_lr, then min_lr for the last no_aug_epochs.
  yoloxwarmcos,
  // linear warm-up, then linear decay from lr0 to min_lr over the remaining steps.
  linear,
  // linear warm-up, then cosine from lr0 to min_lr over the remaining steps.
  cosine,
  // linear warm-up, flat lr0, cosine to min_lr over the last no_aug_epochs (D-FINE family).
  flatcosine,
  // linear warm-up (if any), then lr0.
  constant,
};

// The user-facing names: "yoloxwarmcos", "linear", "cos" / "warmcos" / "cosine" (LibreYOLO's
// YOLOv9 trainer accepts the first two), "flatcosine", "constant". Throws core::Error otherwise.
LrScheduleKind parse_lr_schedule(std::string_view name);
const char* to_string(LrScheduleKind kind);

// Defaults are LibreYOLO's TrainConfig defaults (the YOLOX recipe); families override them.
struct LrSchedule {
  LrScheduleKind kind = LrScheduleKind::yoloxwarmcos;
  double lr0 = 0.01;
  int64_t iters_per_epoch = 1;  // optimizer steps per epoch
  int64_t total_epochs = 300;
  int64_t warmup_epochs = 5;
  double warmup_lr_start = 0.0;
  // yoloxwarmcos: the min_lr plateau; flatcosine: the cosine tail; others ignore it.
  int64_t no_aug_epochs = 15;
  double min_lr_ratio = 0.05;  // min_lr = lr0 * min_lr_ratio (constant ignores it)
};

// The learning rate for optimizer step `iteration` (0-based). Same arithmetic, in the same
// order, as LibreYOLO's Python, so values match to the last bit.
double learning_rate(const LrSchedule& schedule, int64_t iteration);

}  // namespace libreyolo::core::optim

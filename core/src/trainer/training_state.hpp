#pragma once
// A run's state <-> a checkpoint file (weights/last.pt, best.pt): LibreYOLO's schema v1.0 with
// the model (EMA weights when EMA is on), plus what `resume=true` needs to continue exactly
// where the run stopped. Private to core/src/trainer/.

#include <filesystem>

#include "libreyolo/core/checkpoint/checkpoint.hpp"
#include "session.hpp"

namespace libreyolo::core::trainer {

// Writes atomically. A failure (disk full) keeps the previous file intact, is logged and
// recorded in session.saved, not thrown: training goes on and the next save tries again; the
// run ends with an error unless a later save of the same file succeeds. Returns whether it saved.
// `last_finished_epoch` is 0-based; -1 saves the starting state (nothing trained yet).
bool save_checkpoint_file(Session& session, const std::filesystem::path& file, int last_finished_epoch);

// The default CPU generator's state, and putting one back: checkpoints save it, and the epoch
// loop keeps hooks set up before the first epoch from moving the stream a resume restored.
torch::Tensor cpu_random_state();
void set_cpu_random_state(const torch::Tensor& state);

// Restores weights, EMA, optimizer buffers, scaler, RNG and progress from last.pt.
void restore_training_state(Session& session, const checkpoint::Checkpoint& saved);

}  // namespace libreyolo::core::trainer

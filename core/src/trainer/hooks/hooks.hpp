#pragma once
// The policies around the epoch loop, one hook each (train_loop.hpp). train() installs them in
// this order, which is the order their after_epoch runs in. Private to core/src/trainer/.

#include <memory>

#include "../train_loop.hpp"

namespace libreyolo::core::trainer::hooks {

// The recipe's epoch schedule: augmentation pipeline, multi-scale, EMA decay, detector
// events, capture invalidation, each announced in one log line.
std::unique_ptr<TrainHook> epoch_schedule();
// cuda_graph=true: after an epoch whose batches partly ran eager, one line with their shapes.
std::unique_ptr<TrainHook> capture_report();
// The console progress line of each epoch (drawn on rank 0's terminal only).
std::unique_ptr<TrainHook> progress_line();
// profile=true: the step profiler attached for its window; null when profile=false.
std::unique_ptr<TrainHook> step_profiler(const Session& session);
// One process: Ctrl-C or SIGTERM ends the epoch after its current step and stops the run
// (exit code 130); weights/last.pt keeps the last finished epoch, nothing of this one.
std::unique_ptr<TrainHook> interrupt();
// Rank 0: validation every eval_interval epochs and at the last, best.pt on a new best mAP50-95.
std::unique_ptr<TrainHook> validation();
// Rank 0: results.csv / metrics.jsonl and the epoch's log line.
std::unique_ptr<TrainHook> results();
// Rank 0: weights/last.pt at the start and every epoch, epochN.pt every save_period epochs;
// removes temporary files of saves that never finished.
std::unique_ptr<TrainHook> checkpoints();
// Rank 0: stop when mAP50-95 has not improved for `patience` epochs.
std::unique_ptr<TrainHook> early_stop();
// Rank 0: summary.json (LibreYOLO's) when training returns; none after Ctrl-C.
std::unique_ptr<TrainHook> summary();

// labels.jpg before the first epoch, train_batch0.jpg after the run's first step, results.png
// after every epoch (after results(), whose row it draws); after the run, PR_curve.png,
// F1_curve.png, confusion_matrix_normalized.png and val_batch0_pred.jpg from the last
// validation (validation() keeps it in TrainLoop::last_validation). A plot that fails is a warning.
std::unique_ptr<TrainHook> plots();
// Distributed runs: rank 0 decides whether every rank goes on (early stop, Ctrl-C on any rank's
// terminal is seen by rank 0) and broadcasts it; the ranks leave the loop together.
std::unique_ptr<TrainHook> distributed_decision();

}  // namespace libreyolo::core::trainer::hooks

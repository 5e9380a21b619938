#pragma once
// The epoch loop as a short loop with hooks (Detectron2's train_loop is the model). The loop
// runs epochs of train_step(); every policy around it (validation, checkpoints, early stop,
// Ctrl-C, the profiler, the progress line, results.csv, the epoch schedule, the distributed
// stop decision) is a TrainHook that train() installs. Private to core/src/trainer/.
//
//   before_train                       once, after the session is built (and resumed)
//   for each epoch:
//     before_epoch                     the schedule, the progress line
//     for each step: train_step, after_step
//     after_epoch                      in install order; a hook may end the run
//   after_train                        once, however the loop ended

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "libreyolo/core/trainer/trainer.hpp"
#include "session.hpp"

namespace libreyolo::core::trainer {

// Why the loop stops before its last epoch.
enum class StopReason : std::int64_t { none = 0, early_stop = 1, interrupted = 2, profiled = 3 };

// What one epoch of training produced (the hooks turn it into an EpochRecord).
struct EpochResult {
  std::vector<std::pair<std::string, double>> losses;  // mean per component
  double seconds = 0;
  std::size_t images = 0;  // this rank's
};

class TrainHook;
struct ValidationPictures;
using Hooks = std::vector<std::unique_ptr<TrainHook>>;

// The state hooks share.
class TrainLoop {
 public:
  TrainLoop(Session& session, const TrainRequest& request) : session(session), request(request) {}

  Session& session;
  const TrainRequest& request;
  TrainOutcome outcome;
  int epoch = 0;              // the current epoch, 0-based
  std::int64_t step = 0;      // steps done in the current epoch
  std::size_t images = 0;     // images this rank trained in the current epoch so far
  EpochResult result;         // the current epoch's, once it is trained
  EpochRecord record;         // the epoch's record; validation adds its metrics (rank 0)
  bool improved = false;      // this epoch's validation found a new best mAP50-95
  const data::Batch* batch = nullptr;  // during after_step: the batch the step trained on
  // plots=true (rank 0): what the run's latest validation's pictures are drawn from; the plots
  // hook draws them once the run is over.
  std::shared_ptr<const ValidationPictures> last_validation;

  // after_step: the epoch ends after this step.
  void end_epoch_now() { end_epoch_ = true; }
  bool epoch_ending() const { return end_epoch_; }
  // after_epoch: the run ends once the remaining after_epoch hooks have run.
  void stop_after_epoch(StopReason reason) { stop_ = reason; }
  // after_epoch: the run ends now; the remaining after_epoch hooks do not run (nothing is
  // validated or saved as a finished epoch).
  void abandon_epoch(StopReason reason) {
    stop_ = reason;
    abandoned_ = true;
  }
  StopReason stop_reason() const { return stop_; }
  bool abandoned() const { return abandoned_; }

  // The epoch's mean loss components so far (one device-to-host read).
  std::vector<std::pair<std::string, double>> running_means() const;

  // Loss components summed over the epoch's steps, on the device, and how many steps.
  torch::Tensor loss_sums;
  std::int64_t steps_counted = 0;

 private:
  friend void run_epochs(TrainLoop& loop, const Hooks& hooks);
  bool end_epoch_ = false;
  bool abandoned_ = false;
  StopReason stop_ = StopReason::none;
};

class TrainHook {
 public:
  virtual ~TrainHook() = default;
  virtual void before_train(TrainLoop&) {}
  virtual void before_epoch(TrainLoop&) {}
  virtual void after_step(TrainLoop&) {}
  virtual void after_epoch(TrainLoop&) {}
  virtual void after_train(TrainLoop&) {}
};

// before_train, the epochs from session.progress.start_epoch to the last (or until a hook
// stops the run), after_train. Fills loop.outcome's epochs_completed, interrupted and
// stopped_early from the stop reason.
void run_epochs(TrainLoop& loop, const Hooks& hooks);

}  // namespace libreyolo::core::trainer

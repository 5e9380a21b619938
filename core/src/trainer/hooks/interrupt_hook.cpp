#include "../resume_command.hpp"
#include "hooks.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/interrupt.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

// A single process: the first Ctrl-C or SIGTERM ends the epoch after the current step and stops.
// Nothing of the unfinished epoch is saved: weights/last.pt keeps the last finished epoch (or
// the starting weights, hooks::checkpoints), whose weights, optimizer step count, schedule,
// EMA, scaler and RNG all belong to one epoch boundary, so resume=true repeats the interrupted
// epoch exactly as an uninterrupted run trains it. (Saving the mid-epoch weights as "the
// previous epoch" made the resumed run count the interrupted epoch's steps twice: issue #20.)
// Distributed ranks leave together at the epoch's end instead: distributed_decision.
class InterruptHook : public TrainHook {
 public:
  void after_step(TrainLoop& loop) override {
    if (InterruptGuard::requested()) loop.end_epoch_now();
  }

  void after_epoch(TrainLoop& loop) override {
    if (!InterruptGuard::requested()) return;
    const Session& s = loop.session;
    const auto last = s.run.weights / "last.pt";
    const int kept = s.saved.epochs_on_disk(last);
    const std::string holds = kept < 0    ? "nothing was saved (every save of last.pt failed)"
                              : kept == 0 ? last.string() + " holds the starting weights"
                                          : last.string() + " holds epoch " + std::to_string(kept);
    log::warn("interrupted (", InterruptGuard::signal_name(), ") during epoch ", loop.epoch + 1, ": ", holds,
              "; the ", loop.step, loop.step == 1 ? " step" : " steps", " of epoch ", loop.epoch + 1,
              " are not kept, so a resume trains it again exactly. Resume with: ", resume_command(s.run));
    loop.abandon_epoch(StopReason::interrupted);
  }
};

}  // namespace

std::unique_ptr<TrainHook> interrupt() { return std::make_unique<InterruptHook>(); }

}  // namespace libreyolo::core::trainer::hooks

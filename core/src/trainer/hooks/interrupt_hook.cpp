#include "../training_state.hpp"
#include "hooks.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/interrupt.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

// A single process: the first Ctrl-C ends the epoch after the current step, keeps the last
// finished epoch in weights/last.pt and stops. (Distributed ranks leave together at the epoch's
// end instead: distributed_decision.)
class InterruptHook : public TrainHook {
 public:
  void after_step(TrainLoop& loop) override {
    if (InterruptGuard::requested()) loop.end_epoch_now();
  }

  void after_epoch(TrainLoop& loop) override {
    if (!InterruptGuard::requested()) return;
    const Session& s = loop.session;
    const auto last = s.run.weights / "last.pt";
    save_checkpoint_file(s, last, loop.epoch - 1);
    log::warn("interrupted during epoch ", loop.epoch + 1, ": saved ", last.string(),
              ". Resume with: libreyolo-host train resume=true project=", s.config.project, " name=",
              s.run.root.filename().string());
    loop.abandon_epoch(StopReason::interrupted);
  }
};

}  // namespace

std::unique_ptr<TrainHook> interrupt() { return std::make_unique<InterruptHook>(); }

}  // namespace libreyolo::core::trainer::hooks

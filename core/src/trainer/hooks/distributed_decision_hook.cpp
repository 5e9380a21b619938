#include "../resume_command.hpp"
#include "hooks.hpp"
#include "libreyolo/core/distributed/replica_state.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/interrupt.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

// Every rank leaves the loop at the same epoch: rank 0 (which validated and saved) decides,
// the others wait for its word at the end of every epoch.
class DistributedDecisionHook : public TrainHook {
 public:
  void after_epoch(TrainLoop& loop) override {
    Session& s = loop.session;
    auto decision = StopReason::none;
    if (s.main_rank()) {
      decision = loop.stop_reason();
      if (decision == StopReason::none && InterruptGuard::requested()) {
        log::warn("interrupted (", InterruptGuard::signal_name(), "): every rank stops after epoch ", loop.epoch + 1,
                  " (", describe_on_disk(s.saved.files(), s.run.root), "). Resume with: ", resume_command(s.run));
        decision = StopReason::interrupted;
      }
    }
    decision = static_cast<StopReason>(
        distributed::broadcast_integer(*s.collectives, static_cast<std::int64_t>(decision)));
    if (decision != StopReason::none) loop.stop_after_epoch(decision);
  }
};

}  // namespace

std::unique_ptr<TrainHook> distributed_decision() { return std::make_unique<DistributedDecisionHook>(); }

}  // namespace libreyolo::core::trainer::hooks

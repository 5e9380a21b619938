#include <string>

#include "../training_state.hpp"
#include "hooks.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

class CheckpointsHook : public TrainHook {
 public:
  void after_epoch(TrainLoop& loop) override {
    const Session& s = loop.session;
    save_checkpoint_file(s, s.run.weights / "last.pt", loop.epoch);
    const int finished = loop.epoch + 1;
    if (s.config.save_period > 0 && finished % s.config.save_period == 0) {
      save_checkpoint_file(s, s.run.weights / ("epoch" + std::to_string(finished) + ".pt"), loop.epoch);
    }
  }
};

}  // namespace

std::unique_ptr<TrainHook> checkpoints() { return std::make_unique<CheckpointsHook>(); }

}  // namespace libreyolo::core::trainer::hooks

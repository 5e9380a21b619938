#include "hooks.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

// Counts validated epochs without a new best (each validation stands for eval_interval epochs,
// as LibreYOLO counts them) and stops once `patience` is reached.
class EarlyStopHook : public TrainHook {
 public:
  void after_epoch(TrainLoop& loop) override {
    const auto& c = loop.session.config;
    if (loop.record.validated) epochs_without_improvement_ = loop.improved ? 0 : epochs_without_improvement_ + c.eval_interval;
    if (c.patience <= 0 || epochs_without_improvement_ < c.patience) return;
    log::info("stopping early: no improvement in mAP50-95 for ", epochs_without_improvement_, " epochs (patience=",
              c.patience, ")");
    loop.stop_after_epoch(StopReason::early_stop);
  }

 private:
  int epochs_without_improvement_ = 0;
};

}  // namespace

std::unique_ptr<TrainHook> early_stop() { return std::make_unique<EarlyStopHook>(); }

}  // namespace libreyolo::core::trainer::hooks

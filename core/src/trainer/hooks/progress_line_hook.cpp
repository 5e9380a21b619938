#include "hooks.hpp"
#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/trainer/progress_display.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

class ProgressLineHook : public TrainHook {
 public:
  void before_train(TrainLoop& loop) override {
    const Session& s = loop.session;
    display_ = std::make_unique<ProgressDisplay>(s.config.epochs, s.loader->steps_per_epoch(), s.main_rank());
  }
  void before_epoch(TrainLoop& loop) override { display_->start_epoch(loop.epoch); }
  void after_step(TrainLoop& loop) override {
    if (!display_->interactive()) return;
    const Session& s = loop.session;
    const auto steps = static_cast<std::int64_t>(s.loader->steps_per_epoch());
    // Reading the running losses costs a device sync: only every log_interval steps.
    if (loop.step % s.config.log_interval != 0 && loop.step != steps) return;
    display_->update(static_cast<std::size_t>(loop.step), loop.images, loop.running_means(),
                     device::reserved_memory_gb(s.device));
  }
  void after_epoch(TrainLoop&) override { display_->finish_epoch(); }

 private:
  std::unique_ptr<ProgressDisplay> display_;
};

}  // namespace

std::unique_ptr<TrainHook> progress_line() { return std::make_unique<ProgressLineHook>(); }

}  // namespace libreyolo::core::trainer::hooks

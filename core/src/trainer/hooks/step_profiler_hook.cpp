#include "hooks.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/training_profiler_setup.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

// Attaches the profiler as the step's observer until its window is reported. Under
// `profile run` (stop_when_profiled) the run ends there: no validation, no checkpoint.
class StepProfilerHook : public TrainHook {
 public:
  explicit StepProfilerHook(std::unique_ptr<profiler::TrainingProfiler> profiler) : profiler_(std::move(profiler)) {}

  void before_train(TrainLoop& loop) override { loop.session.observer = profiler_.get(); }

  void after_step(TrainLoop& loop) override {
    Session& s = loop.session;
    if (s.observer != profiler_.get() || !profiler_->finished()) return;
    s.observer = nullptr;  // the window is reported: the profiler's hooks come off
    if (loop.request.stop_when_profiled) loop.end_epoch_now();
  }

  void after_epoch(TrainLoop& loop) override {
    if (loop.request.stop_when_profiled && profiler_->finished()) loop.abandon_epoch(StopReason::profiled);
  }

  void after_train(TrainLoop&) override { profiler_->run_ended(); }

 private:
  std::unique_ptr<profiler::TrainingProfiler> profiler_;
};

}  // namespace

std::unique_ptr<TrainHook> step_profiler(const Session& s) {
#ifndef LIBREYOLO_WITHOUT_STEP_PROFILER
  auto profiler = profiler::make_training_profiler(s.config, s.family->info.name + s.size, s.device, s.run.root,
                                                   s.rank, s.world_size);
  if (!profiler) return nullptr;  // profile=false, or a rank other than 0
  return std::make_unique<StepProfilerHook>(std::move(profiler));
#else
  // A build without the step profiler (LIBREYOLO_STEP_PROFILER=OFF), for measuring its cost.
  if (s.config.profile) {
    throw Error("profile=true in a build without the step profiler", "it was configured with -DLIBREYOLO_STEP_PROFILER=OFF",
                "use a default build (the profiler costs nothing while profile=false)");
  }
  return nullptr;
#endif
}

}  // namespace libreyolo::core::trainer::hooks

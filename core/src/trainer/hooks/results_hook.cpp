#include <algorithm>
#include <string>

#include "hooks.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/progress_display.hpp"
#include "libreyolo/core/trainer/results_log.hpp"
#include "libreyolo/core/trainer/resume_target.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

class ResultsHook : public TrainHook {
 public:
  void before_train(TrainLoop& loop) override {
    const Session& s = loop.session;
    log_ = std::make_unique<ResultsLog>(s.run.root, s.criterion->component_names(), s.optimizer->groups().size(),
                                        resume_requested(s.config.resume));
  }

  void after_epoch(TrainLoop& loop) override {
    auto& record = loop.record;
    const auto& progress = loop.session.progress;
    if (progress.best_epoch >= 0) {  // the best so far, validated this epoch or earlier
      record.best_epoch = progress.best_epoch + 1;
      record.best_metric = progress.best_fitness;
    }
    log_->write(record);
    loop.outcome.epochs.push_back(record);
    std::string summary;
    for (const auto& [name, value] : record.train_losses) summary += " " + name + " " + std::to_string(value);
    log::info("epoch ", record.epoch, "/", loop.session.config.epochs, ":", summary, ", ",
              format_images_per_second(record.images_per_second),
              record.validated ? ", mAP50 " + std::to_string(std::max(0.0, record.stats.ap50())) + " mAP50-95 " +
                                     std::to_string(std::max(0.0, record.stats.ap()))
                               : std::string());
  }

 private:
  std::unique_ptr<ResultsLog> log_;
};

}  // namespace

std::unique_ptr<TrainHook> results() { return std::make_unique<ResultsHook>(); }

}  // namespace libreyolo::core::trainer::hooks

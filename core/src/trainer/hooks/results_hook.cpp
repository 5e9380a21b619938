#include <string>

#include "hooks.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/results_log.hpp"
#include "libreyolo/core/trainer/resume_target.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

class ResultsHook : public TrainHook {
 public:
  void before_train(TrainLoop& loop) override {
    const Session& s = loop.session;
    log_ = std::make_unique<ResultsLog>(s.run.root, s.criterion->component_names(), resume_requested(s.config.resume));
  }

  void after_epoch(TrainLoop& loop) override {
    const auto& record = loop.record;
    log_->write(record);
    loop.outcome.epochs.push_back(record);
    std::string summary;
    for (const auto& [name, value] : record.train_losses) summary += " " + name + " " + std::to_string(value);
    log::info("epoch ", record.epoch, "/", loop.session.config.epochs, ":", summary, ", ",
              static_cast<long>(record.images_per_second), " img/s",
              record.validated ? ", mAP50 " + std::to_string(record.map50) + " mAP50-95 " + std::to_string(record.map50_95)
                               : std::string());
  }

 private:
  std::unique_ptr<ResultsLog> log_;
};

}  // namespace

std::unique_ptr<TrainHook> results() { return std::make_unique<ResultsHook>(); }

}  // namespace libreyolo::core::trainer::hooks

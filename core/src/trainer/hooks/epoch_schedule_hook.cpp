#include <torch/torch.h>

#include "hooks.hpp"
#include "libreyolo/core/config/train_option_list.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/epoch_schedule.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

// What a scheduled change acts on: the session's loader pipeline, multi-scale switch, EMA,
// detector and capture manager.
class SessionTarget : public ScheduleTarget {
 public:
  explicit SessionTarget(Session& s) : s_(s) {}
  void switch_augmentation(const std::string& pipeline) override { s_.pipeline = s_.augmentation.index_of(pipeline); }
  void set_multi_scale(bool on) override {
    // The option wins: a schedule never turns on what multi_scale=false turned off.
    s_.multi_scale = on && s_.config.multi_scale;
    // Fixed shapes again: cuDNN's autotuning pays off from here.
    if (!s_.multi_scale && s_.device.is_cuda()) at::globalContext().setBenchmarkCuDNN(true);
  }
  void set_ema_decay(double decay) override {
    if (s_.ema) s_.ema->set_decay(decay, /*ramp=*/false);
  }
  void detector_event(const std::string& event) override { s_.model->on_scheduled_change(event); }
  void captured_region_changed(const std::string& reason) override { s_.capture->invalidate(reason); }

 private:
  Session& s_;
};

// A from-end point's count, e.g. no_aug_epochs, as the run resolved it.
double numeric_option(const config::TrainConfig& c, const std::string& name) {
  const auto* option = config::find_train_option(name);
  const auto value = option ? config::read_field(c, option->field) : config::OptionValue{};
  if (const auto* integer = std::get_if<long long>(&value)) return static_cast<double>(*integer);
  if (const auto* number = std::get_if<double>(&value)) return *number;
  throw Error("the recipe's epoch schedule places a change with option '" + name + "'",
              option ? "it is not a numeric option" : "there is no such option",
              "fix the family's recipe (e.g. EpochPoint::from_end_option(\"no_aug_epochs\"))");
}

class EpochScheduleHook : public TrainHook {
 public:
  void before_train(TrainLoop& loop) override {
    const Session& s = loop.session;
    schedule_ = std::make_unique<EpochSchedule>(s.recipe.schedule, s.config.epochs, [&s](const std::string& option) {
      return numeric_option(s.config, option);
    });
  }

  void before_epoch(TrainLoop& loop) override {
    SessionTarget target(loop.session);
    for (const auto& line : schedule_->apply_due(loop.epoch, target)) log::info(line);
  }

 private:
  std::unique_ptr<EpochSchedule> schedule_;
};

}  // namespace

std::unique_ptr<TrainHook> epoch_schedule() { return std::make_unique<EpochScheduleHook>(); }

}  // namespace libreyolo::core::trainer::hooks

#include "libreyolo/core/trainer/epoch_schedule.hpp"

#include <cmath>

#include "libreyolo/core/data/augment/pipeline_text.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::trainer {
namespace {

[[noreturn]] void bad_point(const std::string& what, const std::string& rule) {
  throw Error("the recipe's epoch schedule has " + what, rule, "fix the family's recipe (or the option it names)");
}

std::string describe_actions(const sdk::EpochChange& change) {
  std::string actions;
  auto add = [&](const std::string& action) { actions += (actions.empty() ? "" : ", ") + action; };
  if (change.augmentation) add("augmentation " + *change.augmentation);
  if (change.multi_scale) add(std::string("multi-scale ") + (*change.multi_scale ? "on" : "off"));
  if (change.ema_decay) add("EMA decay " + std::to_string(*change.ema_decay) + " (constant)");
  if (!change.detector_event.empty()) add("detector: " + change.detector_event);
  if (change.changes_captured_region) add("captured region changes");
  return actions;
}

}  // namespace

int resolve_epoch(const sdk::EpochPoint& point, int epochs, const OptionLookup& option_value) {
  using Kind = sdk::EpochPoint::Kind;
  // The option, when the point names one, overrides the declared value (its family default).
  const double value = point.count_option.empty() ? point.value : option_value(point.count_option);
  switch (point.kind) {
    case Kind::absolute:
      if (value < 0) bad_point("a change at epoch " + std::to_string(value), "epochs count from 0");
      return static_cast<int>(value);
    case Kind::from_end: {
      if (value < 0 || std::floor(value) != value) {
        bad_point("a change " + data::format_number(value) + " epochs from the end", "the count must be a whole number >= 0");
      }
      const auto count = static_cast<long long>(value);
      return static_cast<int>(std::max<long long>(0, static_cast<long long>(epochs) - count));
    }
    case Kind::fraction:
      if (!(value >= 0 && value <= 1)) {
        bad_point("a change at fraction " + data::format_number(value) + " of the run", "a fraction is in [0, 1]");
      }
      return static_cast<int>(std::floor(epochs * value));
  }
  return epochs;
}

EpochSchedule::EpochSchedule(std::vector<sdk::EpochChange> changes, int epochs, const OptionLookup& option_value)
    : changes_(std::move(changes)), applied_(changes_.size(), false), run_epochs_(epochs) {
  for (const auto& change : changes_) at_.push_back(resolve_epoch(change.at, epochs, option_value));
}

std::vector<std::string> EpochSchedule::apply_due(int epoch, ScheduleTarget& target) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < changes_.size(); ++i) {
    if (applied_[i] || at_[i] > epoch || at_[i] >= run_epochs_) continue;
    applied_[i] = true;
    const auto& change = changes_[i];
    if (change.augmentation) target.switch_augmentation(*change.augmentation);
    if (change.multi_scale) target.set_multi_scale(*change.multi_scale);
    if (change.ema_decay) target.set_ema_decay(*change.ema_decay);
    if (!change.detector_event.empty()) target.detector_event(change.detector_event);
    const std::string what = change.what.empty() ? "scheduled change" : change.what;
    if (change.changes_captured_region) target.captured_region_changed(what + " at epoch " + std::to_string(at_[i] + 1));
    std::string line = "epoch " + std::to_string(at_[i] + 1) + "/" + std::to_string(run_epochs_) + ": " + what;
    const auto actions = describe_actions(change);
    if (!actions.empty()) line += " (" + actions + ")";
    if (at_[i] < epoch) line += ", applied on resuming at epoch " + std::to_string(epoch + 1);
    lines.push_back(line);
  }
  return lines;
}

}  // namespace libreyolo::core::trainer

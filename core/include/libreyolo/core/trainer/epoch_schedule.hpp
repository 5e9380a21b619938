#pragma once
// The recipe's epoch schedule (sdk/epoch_schedule.hpp) for one run: each change at the epoch it
// resolves to, applied once, in order, to whatever the run holds (the ScheduleTarget), with one
// log line each. A resumed run applies, before its first epoch, every change whose epoch has
// passed. Torch-free: the trainer's hook implements ScheduleTarget against its session.

#include <functional>
#include <string>
#include <vector>

#include "libreyolo/sdk/epoch_schedule.hpp"

namespace libreyolo::core::trainer {

// The value of a numeric option, by name (the run's resolved options).
using OptionLookup = std::function<double(const std::string&)>;

// `point` in a run of `epochs` epochs (0-based; `epochs` or more: never). `option_value`
// answers a point's count_option (from_end: e.g. no_aug_epochs; fraction: e.g.
// aug_stop_epoch_ratio). Throws core::Error for a fraction outside [0, 1], a negative epoch or
// count, a count that is not a whole number, or an option that is not numeric.
int resolve_epoch(const sdk::EpochPoint& point, int epochs, const OptionLookup& option_value);

// What a change acts on.
class ScheduleTarget {
 public:
  virtual ~ScheduleTarget() = default;
  virtual void switch_augmentation(const std::string& pipeline) = 0;
  virtual void set_multi_scale(bool on) = 0;
  virtual void set_ema_decay(double decay) = 0;
  virtual void detector_event(const std::string& event) = 0;
  virtual void captured_region_changed(const std::string& reason) = 0;
};

class EpochSchedule {
 public:
  EpochSchedule(std::vector<sdk::EpochChange> changes, int epochs, const OptionLookup& option_value);

  // Applies every change due at or before `epoch` that was not applied yet; returns the log
  // lines, one per change ("epoch 286/300: mosaic and mixup off (augmentation no_mosaic)").
  std::vector<std::string> apply_due(int epoch, ScheduleTarget& target);

  // The epoch each change resolved to, in declaration order.
  const std::vector<int>& epochs() const { return at_; }

 private:
  std::vector<sdk::EpochChange> changes_;
  std::vector<int> at_;
  std::vector<bool> applied_;
  int run_epochs_;
};

}  // namespace libreyolo::core::trainer

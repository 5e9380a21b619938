#pragma once
// What changes at which epoch of a run, declared by the family as data: LibreYOLO's recipes
// switch augmentation off for the last no_aug_epochs, D-FINE stops its strong augmentation and
// multi-scale at 85% of the run and restarts its EMA with a constant decay, YOLOX turns on an L1
// loss branch. The host applies each change at the start of its epoch (and, on resume, every
// change whose epoch has passed), says so in one log line, and drops its CUDA graphs when the
// change says the captured region now computes something else. Torch-free.

#include <optional>
#include <string>
#include <vector>

namespace libreyolo::sdk {

// An epoch of the run, written the way recipes think of it. Epochs are 0-based: a change "at
// epoch 280" applies from the start of the 281st epoch.
struct EpochPoint {
  enum class Kind {
    absolute,  // epoch `value`
    from_end,  // epochs - count: count is `value`, or the option named by `count_option`
    fraction,  // floor(epochs * value)
  };
  Kind kind = Kind::absolute;
  double value = 0;
  // The option that sets `value` (the user may change it): from_end's count, e.g.
  // "no_aug_epochs"; fraction's part, e.g. "aug_stop_epoch_ratio" (`value` is then the family's
  // default for that option).
  std::string count_option;

  static EpochPoint at(int epoch) { return {Kind::absolute, static_cast<double>(epoch), {}}; }
  static EpochPoint from_end(int epochs) { return {Kind::from_end, static_cast<double>(epochs), {}}; }
  static EpochPoint from_end_option(std::string option) { return {Kind::from_end, 0, std::move(option)}; }
  static EpochPoint fraction(double part) { return {Kind::fraction, part, {}}; }
};

// One change. Every field is optional: a change may do several things at once.
struct EpochChange {
  EpochPoint at;
  std::string what;  // for the log line: "mosaic and mixup off", "EMA restart"
  std::optional<std::string> augmentation;  // switch to the recipe's pipeline of this name
  std::optional<bool> multi_scale;          // multi-scale batches on or off
  std::optional<double> ema_decay;          // the EMA continues with this constant decay (no ramp)
  // Passed to Detector::on_scheduled_change (e.g. "l1_loss_on"); empty: the detector is not told.
  std::string detector_event;
  // The captured region computes something else from here on (YOLOX's L1 branch changes the
  // head's outputs): the host drops its CUDA graphs and records new ones.
  bool changes_captured_region = false;
};

}  // namespace libreyolo::sdk

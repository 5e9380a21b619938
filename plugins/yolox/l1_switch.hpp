#pragma once
// YOLOX adds an L1 loss on the raw box outputs once augmentation stops (LibreYOLO's trainer sets
// head.use_l1 = True in on_mosaic_disable). The recipe's epoch schedule tells the detector
// (on_scheduled_change) and the criterion computes the loss, so the two share this flag: the
// detector writes it, the criterion reads it at every step.

namespace libreyolo::families::yolox {

// The schedule's detector_event that turns the L1 loss on.
inline constexpr const char* kL1LossOn = "l1_loss_on";

struct L1Switch {
  bool on = false;
};

}  // namespace libreyolo::families::yolox

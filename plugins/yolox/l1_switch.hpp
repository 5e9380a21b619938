#pragma once
// YOLOX adds an L1 loss on the raw box outputs once augmentation stops (LibreYOLO's trainer sets
// head.use_l1 = True in on_mosaic_disable). The detector sees the epoch (on_epoch_start) and the
// criterion computes the loss, so the two share this flag: the detector writes it, the criterion
// reads it at every step.

namespace libreyolo::families::yolox {

struct L1Switch {
  bool on = false;
};

}  // namespace libreyolo::families::yolox

#pragma once
// The settings of D-FINE's criterion: LibreYOLO's DFINETrainer builds its HungarianMatcher and
// DFINECriterion with exactly these numbers (models/dfine/trainer.py, on_setup).

#include <cstdint>

namespace libreyolo::dfine {

struct DfineLossSettings {
  int64_t num_classes = 80;
  int64_t reg_max = 32;  // bins per edge - 1, the decoder's
  // Matcher: focal class cost (alpha 0.25, gamma 2) x 2, L1 x 5, GIoU x 2.
  double cost_class = 2.0, cost_bbox = 5.0, cost_giou = 2.0;
  double matcher_alpha = 0.25, matcher_gamma = 2.0;
  // Loss weights (weight_dict) and the VFL's focal parameters.
  double weight_vfl = 1.0, weight_bbox = 5.0, weight_giou = 2.0, weight_fgl = 0.15, weight_ddf = 1.5;
  double vfl_alpha = 0.75, vfl_gamma = 2.0;
  double ddf_temperature = 5.0;  // loss_local's T
};

}  // namespace libreyolo::dfine

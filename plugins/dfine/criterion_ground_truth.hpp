#pragma once
// The ground truth as D-FINE's criterion reads it: the loader's padded pixel targets turned into
// LibreYOLO's normalised form (what its D-FINE trainer hands the criterion: cx, cy, w, h divided
// by the input size and clamped into [0, 1]), with the GT counts the host already knows.

#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "libreyolo/sdk/targets.hpp"

namespace libreyolo::dfine {

struct CriterionGroundTruth {
  torch::Tensor labels;         // [B, M] int64
  torch::Tensor boxes;          // [B, M, 4] float32 cx, cy, w, h in [0, 1]; padding rows are zeros
  std::vector<int64_t> counts;  // real rows per image (host)
  int64_t max_count = 0;        // the largest of counts
  double num_boxes = 1;         // max(1, sum of counts): LibreYOLO's num_boxes on one process
};

// height and width are the network input's (the outputs' input_size).
CriterionGroundTruth criterion_ground_truth(const sdk::Targets& targets, int64_t height, int64_t width);

}  // namespace libreyolo::dfine

#pragma once
// Ground truth as it reaches a criterion: padded device tensors, so that assigners can work on
// the whole batch at once without per-image loops or host synchronisation.

#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

struct Targets {
  // [B, M, 5] float32 on the training device: (class, cx, cy, w, h) in pixels of the network
  // input. M is the largest box count in the batch (at least 1); rows at or beyond
  // counts[b] are padding and hold zeros.
  torch::Tensor boxes;
  // [B] int64: how many rows of boxes[b] are real.
  torch::Tensor counts;
  // The same counts, known on the host without reading the device (the loader builds the batch
  // there). DETR criteria size their denoising queries and match their GTs from it, so that no
  // step has to wait for the GPU to learn how many boxes it holds. Empty when unknown (a
  // criterion that needs it then reads `counts`, one synchronisation, and says so).
  std::vector<int64_t> host_counts;

  int64_t batch_size() const { return boxes.size(0); }
  int64_t max_boxes() const { return boxes.size(1); }
};

// [B, M] bool: true where a row of targets.boxes is a real box.
LIBREYOLO_SDK_API torch::Tensor valid_mask(const Targets& targets);

// host_counts when the loader filled it, else `counts` read back from the device.
LIBREYOLO_SDK_API std::vector<int64_t> counts_on_host(const Targets& targets);

// Builds padded targets from per-image [n_i, 5] tensors (tests, tools; the loader fills the
// padded layout directly). Keeps the dtype float32 and puts the result on `device`.
LIBREYOLO_SDK_API Targets pad_targets(const std::vector<torch::Tensor>& per_image,
                                      const torch::Device& device);

}  // namespace libreyolo::sdk

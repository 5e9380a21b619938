#pragma once
// SimOTA's selection (losses/simota_selection.hpp) after PyTorch's top-k of the costs, in two
// launches: (1) per (image, row, rank) the taken anchors into a zeroed byte mask [B, M, A]; (2)
// per (image, anchor) the rows that took it, the lowest-cost row by PyTorch's argmin rule (a NaN
// wins, equal costs keep the lowest row), the assigned row and its IoU. A plain interface of raw
// pointers and a stream, no torch and no CUDA headers.

#include <cstdint>

namespace libreyolo::sdk::fused {

struct SimOtaSelectionShape {
  int64_t batch = 0, rows = 0, anchors = 0, topk = 0;
};

struct SimOtaSelectionInputs {
  const float* cost;           // [B, M, A], contiguous
  const float* iou;            // [B, M, A], contiguous
  const float* lowest_cost;    // [B, M, topk]: the top-k (smallest first) of each row's costs
  const int64_t* lowest_index; // [B, M, topk]: their anchors
  const int64_t* dynamic_k;    // [B, M]
};

struct SimOtaSelectionOutputs {
  uint8_t* taken;     // [B, M, A], zeroed by the caller: 1 where the row took the anchor
  bool* foreground;   // [B, A]
  int64_t* gt_index;  // [B, A]
  float* iou;         // [B, A]
};

// Returns 0 on success, else the CUDA error code of a launch (text from
// simota_selection_error_text). Two launches on `stream`.
int simota_selection(const SimOtaSelectionShape& shape, const SimOtaSelectionInputs& in,
                     const SimOtaSelectionOutputs& out, void* stream);
const char* simota_selection_error_text(int code);

}  // namespace libreyolo::sdk::fused

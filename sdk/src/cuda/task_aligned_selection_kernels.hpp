#pragma once
// The task-aligned assigner's later stages as five launches (losses/task_aligned_selection.hpp):
// from the metric, the IoU and PyTorch's top-k of the candidates' metric to the assignment. A
// plain interface of raw pointers and a stream, no torch and no CUDA headers.
//
// Every value is the composed ops' (task_aligned_selection.cpp), bit for bit up to the sign of
// a zero: the reductions are a count, maxima with PyTorch's rules (a NaN wins; equal values keep
// the lowest index) and a sum over rows of which at most one term is not zero.

#include <cstdint>

namespace libreyolo::sdk::fused {

struct SelectionShape {
  int64_t batch = 0, rows = 0, anchors = 0, classes = 0, topk = 0;
  bool ensure_one_anchor = true;
  float eps = 1e-9f;  // the normalisation's eps as float32
};

struct SelectionInputs {
  const float* metric;        // [B, M, A]
  const float* iou;           // [B, M, A]
  const float* top_values;    // [B, M, k]
  const int64_t* top_index;   // [B, M, k]
  const int64_t* labels;      // [B, M]
  const float* gt_boxes;      // [B, M, 4]
};

struct SelectionOutputs {
  uint8_t* positive;          // [B, M, A] work mask, zeroed by the caller
  float* metric_max;          // [B, M] work
  float* iou_max;             // [B, M] work
  float* anchor_score;        // [B, A]: each anchor's normalised score times its foreground flag
  bool* foreground;           // [B, A]
  int64_t* gt_index;          // [B, A]
  int64_t* assigned_labels;   // [B, A]
  float* assigned_boxes;      // [B, A, 4]
  float* scores;              // [B, A, C], or nullptr: not written (launch 5 skipped)
};

// Returns 0 on success, else the CUDA error code of the launches (text from
// task_aligned_selection_error_text). Five launches on `stream`.
int task_aligned_selection(const SelectionShape& shape, const SelectionInputs& in, const SelectionOutputs& out,
                           void* stream);
const char* task_aligned_selection_error_text(int code);

}  // namespace libreyolo::sdk::fused

#pragma once
// SimOTA's centre prior, IoU and matching cost as one kernel (losses/simota_cost.hpp): per image
// b and anchor a, one thread walks the gt rows m twice, first for the candidate flag (a in some
// real row's centre region), then for iou[b, m, a] and cost[b, m, a]. A plain interface of raw
// pointers and a stream, no torch and no CUDA headers, like the other kernels of this folder.
//
// Every value is computed with the operations, in the order and with the float32 roundings, of
// the composed PyTorch ops it replaces (simota_cost.cpp), with no fused multiply-adds. The class
// cost's sum over the classes is a PyTorch reduction whose order a kernel cannot promise to
// repeat, so the caller computes it with the composed ops and passes it in.

#include <cstdint>

namespace libreyolo::sdk::fused {

struct SimOtaCostShape {
  int64_t batch = 0, rows = 0, anchors = 0;
  int64_t score_strides[3] = {0, 0, 0};  // pred_scores' strides in elements (b, a, class)
  float center_radius = 1.5f;            // the options as float32, as PyTorch hands a scalar to a float op
  float iou_weight = 3.f;
  float outside_center_cost = 1.0e6f;
  float log_epsilon = 1e-8f;             // -log(iou + 1e-8)
};

struct SimOtaCostInputs {
  const float* pred_boxes;    // [B, A, 4] (cx, cy, w, h), contiguous
  const float* pred_scores;   // [B, A, C] probabilities at score_strides
  const float* grid;          // [A, 2] (col, row), contiguous
  const float* strides;       // [A]
  const float* gt_boxes;      // [B, M, 4] (cx, cy, w, h), contiguous
  const int64_t* labels;      // [B, M], each in [0, C)
  const bool* gt_valid;       // [B, M]
  const float* negative_sum;  // [B, A]: sum over the classes of BCE(score, 0)
};

struct SimOtaCostOutputs {
  float* iou;        // [B, M, A]
  float* cost;       // [B, M, A]
  bool* candidates;  // [B, A]
};

// Returns 0 on success, else the CUDA error code of the launch (text from
// simota_cost_error_text). One launch on `stream`.
int simota_cost(const SimOtaCostShape& shape, const SimOtaCostInputs& in, const SimOtaCostOutputs& out, void* stream);
const char* simota_cost_error_text(int code);

}  // namespace libreyolo::sdk::fused

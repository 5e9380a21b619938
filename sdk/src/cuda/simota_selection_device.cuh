#pragma once
// The fused SimOTA selection's per-item work (simota_selection_kernels.cu launches it), written
// once for the device and the host, like simota_cost_device.cuh: a unit test runs it on the CPU
// against the composed ops (tests/unit/sdk/test_simota_selection.cpp).
//
// The answers are the composed ops' (simota_selection.cpp): a taken anchor is one of the row's
// first dynamic_k top-k entries with a finite cost; the count of rows taking an anchor is exact
// (a sum of ones); the lowest-cost row follows PyTorch's argmin rule (a NaN wins, equal costs
// keep the lowest row); an anchor taken once keeps that row (argmax of the 0/1 column: its first
// 1, or row 0 when there is none); the IoU is read at the assigned row. No arithmetic is done.
#include <cmath>
#include <cstdint>

#include "float_ops.cuh"
#include "host_device.cuh"
#include "simota_selection_kernels.hpp"


namespace libreyolo::sdk::fused::simota_select {

using ops::is_nan;
LIBREYOLO_HOST_DEVICE inline bool is_finite(float x) { return x == x && x != INFINITY && x != -INFINITY; }

// Launch 1, item j of B x M x topk: row (b, m) = j / topk takes its rank-(j % topk) anchor.
LIBREYOLO_HOST_DEVICE inline void mark_taken(const SimOtaSelectionShape& s, const SimOtaSelectionInputs& in,
                                             const SimOtaSelectionOutputs& out, int64_t j) {
  const int64_t row = j / s.topk, rank = j % s.topk;
  if (rank < in.dynamic_k[row] && is_finite(in.lowest_cost[j])) out.taken[row * s.anchors + in.lowest_index[j]] = 1;
}

// Launch 2, item i = b * anchors + a: who took the anchor, and which row it keeps.
LIBREYOLO_HOST_DEVICE inline void assign_anchor(const SimOtaSelectionShape& s, const SimOtaSelectionInputs& in,
                                                const SimOtaSelectionOutputs& out, int64_t i) {
  const int64_t a = i % s.anchors, b = i / s.anchors;
  int64_t takers = 0, first_taker = 0, cheapest = 0;
  float cheapest_cost = 0.f;
  for (int64_t m = 0; m < s.rows; ++m) {
    const int64_t at = (b * s.rows + m) * s.anchors + a;
    if (out.taken[at]) {
      if (takers == 0) first_taker = m;
      ++takers;
    }
    const float cost = in.cost[at];
    const bool lower = is_nan(cost) ? !is_nan(cheapest_cost) : cost < cheapest_cost;  // m > cheapest always
    if (m == 0 || lower) {
      cheapest_cost = cost;
      cheapest = m;
    }
  }
  const int64_t row = takers > 1 ? cheapest : first_taker;
  out.foreground[i] = takers > 0;
  out.gt_index[i] = row;
  out.iou[i] = takers > 0 ? in.iou[(b * s.rows + row) * s.anchors + a] : 0.f;
}

}  // namespace libreyolo::sdk::fused::simota_select

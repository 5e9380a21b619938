#pragma once
// The fused task-aligned selection's per-item and per-row work (task_aligned_selection_kernels.cu
// launches it), written once for the device and the host, so that a unit test runs it on the CPU
// against the composed ops (tests/unit/sdk/test_task_aligned_selection.cpp). The kernels add only
// the block reductions that combine the per-thread parts of a row's scan; their combine rules
// (below) make the result independent of the order the parts are combined in.
//
// Equality with the composed ops (task_aligned_selection.cpp): float32 arithmetic rounded once
// per operation (float_ops.cuh), PyTorch's rules for maxima (a NaN wins, equal values keep the
// lowest index) and NaN-propagating amax; the sum over rows has at most one nonzero term.
#include <cmath>
#include <cstdint>

#include "float_ops.cuh"
#include "host_device.cuh"
#include "task_aligned_selection_kernels.hpp"

namespace libreyolo::sdk::fused::tas {

using ops::add;
using ops::div;
using ops::is_nan;
using ops::mul;

// (value, index) pairs ordered as PyTorch's max(dim) orders them among non-NaN values.
struct Best {
  float value;
  int64_t index;
};
struct Better {
  LIBREYOLO_HOST_DEVICE Best operator()(Best a, Best b) const {
    return (a.value > b.value || (a.value == b.value && a.index < b.index)) ? a : b;
  }
};
// amax's rule: a NaN wins.
struct NanMax {
  LIBREYOLO_HOST_DEVICE float operator()(float a, float b) const { return (is_nan(a) || a > b) ? a : b; }
};
struct Or {
  LIBREYOLO_HOST_DEVICE int operator()(int a, int b) const { return a | b; }
};

// Part of a row's scan for launch 1: the best non-NaN metric and whether a NaN was seen, over
// the anchors begin, begin + step, ... (a thread's share; begin 0 and step 1 for the whole row).
struct RowScan {
  Best best;
  int nan;
};
LIBREYOLO_HOST_DEVICE inline RowScan scan_row(const SelectionShape& s, const SelectionInputs& in, int64_t row,
                                              int64_t begin, int64_t step) {
  const float* metric = in.metric + row * s.anchors;
  RowScan scan{{-INFINITY, s.anchors}, 0};
  for (int64_t a = begin; a < s.anchors; a += step) {
    const float v = metric[a];
    if (is_nan(v))
      scan.nan = 1;
    else
      scan.best = Better()(scan.best, Best{v, a});
  }
  return scan;
}

// Launch 1, once per row after the scan: with ensure_one_anchor, a row with no top-k positive
// takes its best anchor when that metric is > 0 (a NaN in the row: no best).
LIBREYOLO_HOST_DEVICE inline void mark_orphan(const SelectionShape& s, const SelectionInputs& in,
                                              const SelectionOutputs& out, int64_t row, const RowScan& scan) {
  const float* values = in.top_values + row * s.topk;
  int count = 0;
  for (int64_t j = 0; j < s.topk; ++j) count += values[j] > 0.f;
  if (s.ensure_one_anchor && count == 0 && !scan.nan && scan.best.value > 0.f)
    out.positive[row * s.anchors + scan.best.index] = 1;
}

// Launch 1, item j of the row's top-k: a positive value marks its anchor.
LIBREYOLO_HOST_DEVICE inline void mark_top(const SelectionShape& s, const SelectionInputs& in,
                                           const SelectionOutputs& out, int64_t row, int64_t j) {
  if (in.top_values[row * s.topk + j] > 0.f) out.positive[row * s.anchors + in.top_index[row * s.topk + j]] = 1;
}

// Launch 2, item i = b * anchors + a: an anchor claimed by several rows keeps the row of the
// highest IoU (argmax of iou * positive over rows, PyTorch's rule); the foreground flag and row.
LIBREYOLO_HOST_DEVICE inline void resolve_anchor(const SelectionShape& s, const SelectionInputs& in,
                                                 const SelectionOutputs& out, int64_t i) {
  const int64_t b = i / s.anchors, a = i % s.anchors;
  int64_t claims = 0, first = -1, best_row = 0;
  float best = 0.f;
  for (int64_t m = 0; m < s.rows; ++m) {
    const int64_t at = (b * s.rows + m) * s.anchors + a;
    const bool p = out.positive[at] != 0;
    claims += p;
    if (p && first < 0) first = m;
    const float v = mul(in.iou[at], p ? 1.f : 0.f);
    if (m == 0 || (is_nan(v) && !is_nan(best)) || (!is_nan(best) && v > best)) {
      best = v;
      best_row = m;
    }
  }
  if (claims > 1)
    for (int64_t m = 0; m < s.rows; ++m) out.positive[(b * s.rows + m) * s.anchors + a] = m == best_row;
  out.foreground[i] = claims > 0;
  out.gt_index[i] = claims > 1 ? best_row : (claims == 1 ? first : 0);
}

// Part of a row's scan for launch 3: the maxima of metric * positive and iou * positive.
struct RowMaxima {
  float metric, iou;
};
LIBREYOLO_HOST_DEVICE inline RowMaxima scan_maxima(const SelectionShape& s, const SelectionInputs& in,
                                                   const SelectionOutputs& out, int64_t row, int64_t begin,
                                                   int64_t step) {
  RowMaxima maxima{-INFINITY, -INFINITY};
  for (int64_t a = begin; a < s.anchors; a += step) {
    const float p = out.positive[row * s.anchors + a] ? 1.f : 0.f;
    maxima.metric = NanMax()(maxima.metric, mul(in.metric[row * s.anchors + a], p));
    maxima.iou = NanMax()(maxima.iou, mul(in.iou[row * s.anchors + a], p));
  }
  return maxima;
}

// Launch 4, item i = b * anchors + a: its normalised score (summed over rows: one nonzero term
// at most) times the foreground flag, and its row's label and box.
LIBREYOLO_HOST_DEVICE inline void score_anchor(const SelectionShape& s, const SelectionInputs& in,
                                               const SelectionOutputs& out, int64_t i) {
  const int64_t b = i / s.anchors, a = i % s.anchors;
  float sum = 0.f;
  for (int64_t m = 0; m < s.rows; ++m) {
    const int64_t row = b * s.rows + m, at = row * s.anchors + a;
    const float p = out.positive[at] ? 1.f : 0.f;
    const float normalised = mul(div(mul(in.metric[at], p), add(out.metric_max[row], s.eps)), out.iou_max[row]);
    sum = add(sum, normalised);
  }
  out.anchor_score[i] = mul(sum, out.foreground[i] ? 1.f : 0.f);
  const int64_t row = b * s.rows + out.gt_index[i];
  out.assigned_labels[i] = in.labels[row];
  for (int c = 0; c < 4; ++c) out.assigned_boxes[i * 4 + c] = in.gt_boxes[row * 4 + c];
}

// Launch 5, item i of [B, A, C]: the one-hot of the anchor's label times its score.
LIBREYOLO_HOST_DEVICE inline void score_class(const SelectionShape& s, const SelectionOutputs& out, int64_t i) {
  const int64_t anchor = i / s.classes, c = i % s.classes;
  out.scores[i] = mul(c == out.assigned_labels[anchor] ? 1.f : 0.f, out.anchor_score[anchor]);
}

}  // namespace libreyolo::sdk::fused::tas
